#pragma once
// Message tags of the protocols a node program may embed, one range each, so that a program can
// route what it takes from a channel (tags below `first_protocol_tag` are the program's own).
#include <cstdint>

namespace nnlb::protocol_tags {

inline constexpr std::uint32_t first_protocol_tag = 1000;
inline constexpr std::uint32_t negotiation = 1000;  // .. 1009
inline constexpr std::uint32_t tree = 1010;         // .. 1029
inline constexpr std::uint32_t speed = 1030;        // speed_reports.hpp

}  // namespace nnlb::protocol_tags
