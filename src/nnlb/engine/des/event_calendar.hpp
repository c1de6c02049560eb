#pragma once
// The events of a large heap that are not due soon, in buckets of time: a calendar queue (Brown,
// CACM 31(10), 1988) of two rungs, as in a ladder queue (Tang, Goh & Thng, ACM TOMACS 15(3),
// 2005), in front of a small heap. A heap of a million events (`hypercube:20`) is larger than the
// cache, and each pop walks down through levels that are each a miss; here an event is written
// into a bucket once or twice, and a bucket, when it comes due, is read in one stream into the
// small heap (`near`) that hands its events out. The order is exactly a heap's: buckets split
// time, so every event of `near` is earlier than every event left here.
//
// Coarse bucket c holds the events of times in [origin + c w, origin + (c + 1) w). The coarse
// ring holds the buckets after the current one and `far`, a heap, those beyond it; the current
// one is split into 2^s fine buckets, s chosen for it when it comes due so that a fine bucket
// holds about `per_load` events. An event's delay at `hypercube:16` is a few microseconds for a
// tenth of them (data on its way) and up to 0.1 s for the rest (a computing process's next
// iteration), so the ring spans twice the delay of 99 % of the events. The calendar is built
// again, at most once per as many events as it held, when `far` holds more than the rings, a
// coarse bucket more than its fine ones can split, or the chunks it made (in a burst) are twice
// those it uses: a new store gives the others back.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "nnlb/engine/des/event_heap.hpp"
#include "nnlb/engine/des/mail_store.hpp"

namespace nnlb {

class EventCalendar {
 public:
  // Takes every event of `near` and of the calendar and spreads them again, at a width measured
  // on them: those of the first fine bucket into `near`.
  void rebuild(EventHeap& near) {
    std::vector<Event> all = near.release();
    all.reserve(all.size() + size());
    for (std::uint32_t b = 0; b < buckets_.boxes(); ++b) buckets_.take_if(b, [&](const Event& e) { return all.push_back(e), true; });
    for (const Event& e : far_.release()) all.push_back(e);
    measure(all);
    std::size_t first = 0;
    for (const Event& e : all) first += coarse_of(e.time) == 0;
    split(first);
    fine_current_ = 0;
    for (const Event& e : all) {
      if (due(e.time)) near.push(e);
      else put(e);
    }
    loaded_ = 0;
    cooldown_ = std::max<std::size_t>(all.size(), std::size_t{1} << 16);
  }

  // Whether an event at time t belongs in `near`: its fine bucket is the current one (or earlier).
  bool due(double t) const { return fine_of(t) <= fine_current_; }
  // An event later than every one of `near`.
  void put(const Event& e) {
    const std::uint64_t c = coarse_of(e.time);
    if (c == coarse_current_) {
      const std::uint64_t f = fine_of(e.time) - (c << shift_);
      set(fine_bits_, f);
      buckets_.put(f, e);
      ++fine_held_;
    } else if (c <= coarse_current_ + coarse_) {
      set(coarse_bits_, c & coarse_mask);
      buckets_.put(most_fine + (c & coarse_mask), e);
      ++coarse_held_;
    } else {
      far_.push(e);
    }
  }
  // Moves the events of the next fine bucket that holds any into `near`; false when none is left.
  bool load_next(EventHeap& near) {
    while (fine_held_ == 0) {
      if (coarse_held_ == 0) {
        if (far_.empty()) return false;
        coarse_current_ = coarse_of(far_.top().time) - 1;  // the ring starts at far's first
        bring_far();
      }
      next_coarse();
    }
    const std::uint64_t place = first_set(fine_bits_, fine_current_ + 1 - (coarse_current_ << shift_));
    fine_current_ = (coarse_current_ << shift_) + place;
    clear(fine_bits_, place);
    const std::uint32_t loaded = buckets_.take_if(place, [&](const Event& e) { return near.push(e), true; });
    fine_held_ -= loaded;
    loaded_ += loaded, in_window_ += loaded;
    return true;
  }
  // Whether the calendar should be built again (checked once as many events as it held at its last
  // rebuild have gone through it): see the head of this file.
  bool out_of_shape() const {
    return loaded_ >= cooldown_ && (far_.size() > fine_held_ + coarse_held_ || last_window_ > 4 * per_load * most_fine ||
                                    buckets_.chunks_made() > 2 * buckets_.chunks_in_use() + buckets_.boxes());
  }
  std::size_t size() const { return fine_held_ + coarse_held_ + far_.size(); }

 private:
  static constexpr std::uint64_t per_load = 64, most_fine = 4096;  // events a fine bucket, most fine buckets
  static constexpr std::uint64_t coarse_ = 1024, coarse_mask = coarse_ - 1;  // coarse buckets in the ring
  static constexpr double last_bucket = 0x1p40;  // of times this far (or infinite) on
  static constexpr std::size_t chunk_events = 1024 / sizeof(Event);

  // Time t in coarse buckets from the origin: the coarse bucket is its integer part, the fine
  // one its first s bits after the point (a scaling by 2^s, exact), so both split time alike.
  double in_buckets(double t) const {
    const double x = (t - origin_) * inverse_width_;
    return x > 0 ? std::min(x, last_bucket) : 0.0;  // NaN: 0
  }
  std::uint64_t coarse_of(double t) const { return static_cast<std::uint64_t>(in_buckets(t)); }
  std::uint64_t fine_of(double t) const { return static_cast<std::uint64_t>(std::ldexp(in_buckets(t), static_cast<int>(shift_))); }

  // The origin (the earliest event) and the coarse width for `events`: the ring spans twice the
  // delay of the 99th percentile.
  void measure(std::vector<Event>& events) {
    const auto by_time = [](const Event& a, const Event& b) { return a.time < b.time; };
    const auto p99 = events.begin() + static_cast<std::ptrdiff_t>(events.size() * 99 / 100);
    std::nth_element(events.begin(), p99, events.end(), by_time);  // their order does not matter
    origin_ = std::min_element(events.begin(), p99 + 1, by_time)->time;
    const double width = 2 * (p99->time - origin_) / coarse_;
    inverse_width_ = width > 0 && std::isfinite(width) && std::isfinite(origin_) ? 1 / width : 1;  // ties: any width
    coarse_current_ = 0;
    fine_held_ = coarse_held_ = 0;
    last_window_ = in_window_ = 0;
    buckets_ = des::MailStore<Event>(most_fine + coarse_, chunk_events, true);
    fine_bits_.assign(most_fine / 64, 0);
    coarse_bits_.assign(coarse_ / 64, 0);
  }
  // Splits the current coarse bucket, which `events` are expected in, into fine ones of about
  // per_load events.
  void split(std::size_t events) {
    shift_ = static_cast<std::uint32_t>(std::clamp<int>(std::bit_width(events / per_load), 4, std::countr_zero(most_fine)));
  }

  // The next coarse bucket that holds events, spread over the fine ring (which is empty).
  void next_coarse() {
    const std::uint64_t from = (coarse_current_ + 1) & coarse_mask;
    std::uint64_t place = first_set(coarse_bits_, from);
    if (place == coarse_) place = first_set(coarse_bits_, 0);  // around the ring
    coarse_current_ += 1 + ((place - from) & coarse_mask);
    clear(coarse_bits_, place);
    last_window_ = in_window_, in_window_ = 0;
    split(std::max<std::size_t>(buckets_.size(most_fine + place), last_window_));
    fine_current_ = (coarse_current_ << shift_) - 1;  // none of its fine buckets due yet
    coarse_held_ -= buckets_.take_if(most_fine + place, [&](const Event& e) {
      const std::uint64_t f = fine_of(e.time) - (coarse_current_ << shift_);
      set(fine_bits_, f);
      buckets_.put(f, e);
      ++fine_held_;
      return true;
    });
    bring_far();
  }
  // far's events whose coarse buckets the ring now reaches, into them.
  void bring_far() {
    while (!far_.empty() && coarse_of(far_.top().time) <= coarse_current_ + coarse_) put(far_.pop());
  }

  static void set(std::vector<std::uint64_t>& bits, std::uint64_t k) { bits[k / 64] |= std::uint64_t{1} << (k % 64); }
  static void clear(std::vector<std::uint64_t>& bits, std::uint64_t k) { bits[k / 64] &= ~(std::uint64_t{1} << (k % 64)); }
  // The first set bit at or after k, or the bits' count.
  static std::uint64_t first_set(const std::vector<std::uint64_t>& bits, std::uint64_t k) {
    for (std::uint64_t word = k / 64; word < bits.size(); ++word) {
      const std::uint64_t w = word == k / 64 ? bits[word] & (~std::uint64_t{0} << (k % 64)) : bits[word];
      if (w != 0) return word * 64 + static_cast<std::uint64_t>(std::countr_zero(w));
    }
    return bits.size() * 64;
  }

  double origin_ = 0, inverse_width_ = 1;  // of a coarse bucket
  std::uint64_t coarse_current_ = 0;       // the coarse bucket the fine ones split
  std::uint32_t shift_ = 4;                // its fine buckets: 2^shift_
  std::uint64_t fine_current_ = 0;         // the fine bucket whose events are in `near`
  // The fine buckets, then the coarse ring, in chunks of 1 KiB (a fine bucket's ~64 events in two),
  // on huge pages from the first block: the calendar serves only a heap of more than 2^16 events.
  des::MailStore<Event> buckets_{most_fine + coarse_, chunk_events, true};
  std::vector<std::uint64_t> fine_bits_ = std::vector<std::uint64_t>(most_fine / 64);
  std::vector<std::uint64_t> coarse_bits_ = std::vector<std::uint64_t>(coarse_ / 64);
  std::size_t fine_held_ = 0, coarse_held_ = 0;
  EventHeap far_;
  std::size_t loaded_ = 0, cooldown_ = 0;        // events loaded since the last rebuild, and how many before the next
  std::size_t in_window_ = 0, last_window_ = 0;  // events loaded from the current coarse bucket, and the last one
};

}  // namespace nnlb
