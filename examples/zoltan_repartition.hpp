#pragma once
// Zoltan's geometric repartitioning (RCB or HSFC; Trilinos' Zoltan, Debian's
// libtrilinos-zoltan-dev) of an example's items, what a user would otherwise pick, for the
// comparison with nnlb's locality in docs/mpi.md (issue 41). run() is collective: Zoltan cuts the
// items' positions by their weights and migrates the items' data (an ItemStore of a trivially
// copyable type) with its size / pack / unpack callbacks. Built with Open MPI only: Debian's
// Zoltan links Open MPI, not SMPI.
#include <mpi.h>
#include <zoltan.h>

#include <nnlb/mpi/balancer.hpp>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

template <class T>
class ZoltanRepartition {
  static_assert(std::is_trivially_copyable_v<T>, "an item's data travels as its bytes");

 public:
  using Store = nnlb::mpi::ItemStore<T>;
  using Position = std::function<std::array<double, 2>(nnlb::ItemId)>;
  using Weight = std::function<double(nnlb::ItemId)>;

  // `method`: rcb or hsfc. Imbalance tolerance 1.01 (Zoltan's default is 1.1); RCB starts from
  // its previous cuts (RCB_REUSE), so that a repartition moves few items.
  ZoltanRepartition(MPI_Comm comm, const std::string& method, Store& store, Position position, Weight weight)
      : store_(store), position_(std::move(position)), weight_(std::move(weight)) {
    if (method != "rcb" && method != "hsfc") throw std::invalid_argument("--zoltan " + method + " (rcb or hsfc)");
    float version = 0;
    Zoltan_Initialize(0, nullptr, &version);
    zz_ = Zoltan_Create(comm);
    for (const auto& [key, value] : {std::pair{"DEBUG_LEVEL", "0"}, {"LB_METHOD", method == "rcb" ? "RCB" : "HSFC"}, {"LB_APPROACH", "REPARTITION"},
                                     {"NUM_GID_ENTRIES", "1"}, {"NUM_LID_ENTRIES", "0"}, {"OBJ_WEIGHT_DIM", "1"}, {"IMBALANCE_TOL", "1.01"},
                                     {"RETURN_LISTS", "ALL"}, {"AUTO_MIGRATE", "TRUE"}})
      Zoltan_Set_Param(zz_, key, value);
    if (method == "rcb") Zoltan_Set_Param(zz_, "RCB_REUSE", "1");
    Zoltan_Set_Num_Obj_Fn(zz_, &count, this);
    Zoltan_Set_Obj_List_Fn(zz_, &list, this);
    Zoltan_Set_Num_Geom_Fn(zz_, [](void*, int* ierr) { *ierr = ZOLTAN_OK; return 2; }, nullptr);
    Zoltan_Set_Geom_Multi_Fn(zz_, &geometry, this);
    Zoltan_Set_Obj_Size_Fn(zz_, [](void*, int, int, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR, int* ierr) { *ierr = ZOLTAN_OK; return static_cast<int>(sizeof(T)); },
                           nullptr);
    Zoltan_Set_Pack_Obj_Fn(zz_, &pack, this);
    Zoltan_Set_Unpack_Obj_Fn(zz_, &unpack, this);
  }
  ~ZoltanRepartition() { Zoltan_Destroy(&zz_); }
  ZoltanRepartition(const ZoltanRepartition&) = delete;
  ZoltanRepartition& operator=(const ZoltanRepartition&) = delete;

  // Collective: repartitions the items by their weights now; the number this rank sent away.
  int run() {
    int changes = 0, gid_entries = 0, lid_entries = 0, imports = 0, exports = 0;
    ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr, export_gids = nullptr, export_lids = nullptr;
    int *import_procs = nullptr, *import_parts = nullptr, *export_procs = nullptr, *export_parts = nullptr;
    const int status = Zoltan_LB_Partition(zz_, &changes, &gid_entries, &lid_entries, &imports, &import_gids, &import_lids, &import_procs,
                                           &import_parts, &exports, &export_gids, &export_lids, &export_procs, &export_parts);
    if (status != ZOLTAN_OK && status != ZOLTAN_WARN) throw std::runtime_error("Zoltan_LB_Partition failed (" + std::to_string(status) + ")");
    Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
    Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
    return exports;
  }

 private:
  static ZoltanRepartition& of(void* d) { return *static_cast<ZoltanRepartition*>(d); }
  static int count(void* d, int* ierr) {
    *ierr = ZOLTAN_OK;
    return static_cast<int>(of(d).store_.size());
  }
  static void list(void* d, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR, int, float* weights, int* ierr) {
    int k = 0;
    for (const auto& [id, value] : of(d).store_.all()) gids[k] = static_cast<ZOLTAN_ID_TYPE>(id), weights[k++] = static_cast<float>(of(d).weight_(id));
    *ierr = ZOLTAN_OK;
  }
  static void geometry(void* d, int, int, int objects, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR, int, double* xy, int* ierr) {
    for (int k = 0; k < objects; ++k) {
      const auto p = of(d).position_(gids[k]);
      xy[2 * k] = p[0], xy[2 * k + 1] = p[1];
    }
    *ierr = ZOLTAN_OK;
  }
  static void pack(void* d, int, int, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR, int, int size, char* buf, int* ierr) {
    std::memcpy(buf, &of(d).store_.at(*gid), static_cast<std::size_t>(size));
    of(d).store_.erase(*gid);
    *ierr = ZOLTAN_OK;
  }
  static void unpack(void* d, int, ZOLTAN_ID_PTR gid, int size, char* buf, int* ierr) {
    T value{};
    std::memcpy(&value, buf, static_cast<std::size_t>(size));
    of(d).store_.put(*gid, value);
    *ierr = ZOLTAN_OK;
  }

  Store& store_;
  Position position_;
  Weight weight_;
  Zoltan_Struct* zz_ = nullptr;
};
