# cmake -DBUILD_DIR=<nnlb build> -DCONSUMER_DIR=<this folder> -DWORK_DIR=<scratch> [-DCONFIG=Release]
#       [-DGENERATOR=Ninja] [-DCXX=<compiler>] [-DMPIEXEC=<mpiexec>] [-DSIMGRID_PLUGIN=<file name>] -P run.cmake
# Installs the nnlb build into WORK_DIR/prefix, builds the consumer project against it with
# find_package(nnlb), runs it and checks its output; with MPIEXEC (nnlb built with MPI) the MPI
# consumer on nnlb::runtime too, on 2 ranks, and the installed examples (share/nnlb/examples,
# a project of their own) on 4. Then builds both again with the flags of pkg-config's
# nnlb.pc and nnlb-runtime.pc alone.
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR CONSUMER_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${what} failed (${rc}):\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" --config ${CONFIG})

file(GLOB_RECURSE config "${prefix}/*/cmake/nnlb/nnlbConfig.cmake")
if(NOT config)
  message(FATAL_ERROR "install_consumer: no nnlbConfig.cmake installed under ${prefix}")
endif()
get_filename_component(config_dir "${config}" DIRECTORY)
foreach(file ${config_dir}/nnlbConfigVersion.cmake ${config_dir}/nnlbTargets.cmake ${prefix}/include/nnlb/version.hpp
             ${prefix}/include/nnlb/model/graph.hpp ${prefix}/include/nnlb/model/port.hpp)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "install_consumer: ${file} was not installed")
  endif()
endforeach()

# The installed nnlb finds the studies installed beside it (share/nnlb/scenarios).
if(NOT EXISTS "${prefix}/share/nnlb/scenarios/xu1995/fig2.toml")
  message(FATAL_ERROR "install_consumer: the studies were not installed under ${prefix}/share/nnlb/scenarios")
endif()
run("listing the installed studies" ${CMAKE_COMMAND} -E env --unset=NNLB_SCENARIOS "${prefix}/bin/nnlb" reproduce --list)
if(NOT output MATCHES "studies in ${prefix}/share/nnlb/scenarios \\(installed\\)" OR NOT output MATCHES "\nxu1995/fig2 ")
  message(FATAL_ERROR "install_consumer: the installed nnlb did not list its installed studies:\n${output}")
endif()

# With SIMGRID_PLUGIN (nnlb built with SimGrid), the installed nnlb runs engine = "simgrid" from
# the plugin installed in LIBDIR/nnlb.
if(SIMGRID_PLUGIN)
  file(GLOB_RECURSE plugin "${prefix}/*/nnlb/${SIMGRID_PLUGIN}")
  if(NOT plugin)
    message(FATAL_ERROR "install_consumer: the SimGrid engine's plugin ${SIMGRID_PLUGIN} was not installed under ${prefix}")
  endif()
  run("a simgrid run of the installed nnlb" "${prefix}/bin/nnlb" run --set engine=simgrid --set topology=ring:4
      --set load.init=single:0,400)
  if(NOT output MATCHES "balanced")
    message(FATAL_ERROR "install_consumer: the installed nnlb's simgrid run did not end balanced:\n${output}")
  endif()
endif()

set(configure ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build" -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=${CONFIG})
if(GENERATOR)
  list(APPEND configure -G "${GENERATOR}")
endif()
if(CXX)
  list(APPEND configure -DCMAKE_CXX_COMPILER=${CXX})
endif()
run("configuring the consumer" ${configure})
run("building the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/build" --config ${CONFIG})

find_program(consumer consumer PATHS "${WORK_DIR}/build" "${WORK_DIR}/build/${CONFIG}" NO_DEFAULT_PATH REQUIRED)
run("running the consumer" "${consumer}")
if(NOT output MATCHES "^nodes 16 rounds [1-9][0-9]* total 800.0\n$")
  message(FATAL_ERROR "install_consumer: unexpected output: '${output}'")
endif()
message(STATUS "install_consumer: ${output}")

# mpiexec as root, oversubscribed, on this machine only; in the sanitizer build without leak
# reports, which Open MPI's own allocations would fill (as for the mpi_contract test).
set(asan_options "detect_leaks=0")
if(DEFINED ENV{ASAN_OPTIONS} AND NOT "$ENV{ASAN_OPTIONS}" STREQUAL "")
  set(asan_options "$ENV{ASAN_OPTIONS}:detect_leaks=0")
endif()
set(mpirun ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    OMPI_MCA_btl=self,vader "ASAN_OPTIONS=${asan_options}" "${MPIEXEC}" -np 2)
if(MPIEXEC)
  find_program(consumer_mpi consumer_mpi PATHS "${WORK_DIR}/build" "${WORK_DIR}/build/${CONFIG}" NO_DEFAULT_PATH)
  if(NOT consumer_mpi)
    message(FATAL_ERROR "install_consumer: nnlb was built with MPI but find_package(nnlb COMPONENTS runtime) gave no nnlb::runtime")
  endif()
  # The installed nnlb, launched by mpirun, hands over to nnlb-mpi installed beside it
  # (src/cli/mpi_world.hpp); it links no MPI library itself.
  run("an mpi run of the installed nnlb on 2 ranks" ${mpirun} "${prefix}/bin/nnlb" run --set engine=mpi --set topology=ring:2
      --set load.init=single:0,100 --set stop.time=30 --format json)
  if(NOT output MATCHES "\"stop_reason\": *\"balanced\"")
    message(FATAL_ERROR "install_consumer: the installed nnlb under mpirun did not run engine = mpi:\n${output}")
  endif()
  find_program(ldd ldd REQUIRED)
  run("the libraries of the installed nnlb" "${ldd}" "${prefix}/bin/nnlb")
  if(output MATCHES "libmpi")
    message(FATAL_ERROR "install_consumer: the installed nnlb links MPI, which only nnlb-mpi should:\n${output}")
  endif()

  run("running the MPI consumer" ${mpirun} "${consumer_mpi}")
  if(NOT output MATCHES "balanced 1 total 200.0\n")
    message(FATAL_ERROR "install_consumer: unexpected output of the MPI consumer: '${output}'")
  endif()
  message(STATUS "install_consumer (MPI, 2 ranks): ${output}")

  # The installed examples of the MPI library, a project of their own, on 4 ranks.
  set(examples "${prefix}/share/nnlb/examples")
  if(NOT EXISTS "${examples}/CMakeLists.txt")
    message(FATAL_ERROR "install_consumer: the examples were not installed under ${examples}")
  endif()
  set(configure_examples ${configure})
  list(TRANSFORM configure_examples REPLACE "^${CONSUMER_DIR}$" "${examples}")
  list(TRANSFORM configure_examples REPLACE "^${WORK_DIR}/build$" "${WORK_DIR}/examples")
  run("configuring the installed examples" ${configure_examples})
  run("building the installed examples" ${CMAKE_COMMAND} --build "${WORK_DIR}/examples" --config ${CONFIG})
  string(REPLACE "-np;2" "-np;4" mpirun4 "${mpirun}")
  foreach(example work_items stencil own_messages)
    find_program(${example}_exe ${example} PATHS "${WORK_DIR}/examples" "${WORK_DIR}/examples/${CONFIG}" NO_DEFAULT_PATH REQUIRED)
    run("running the installed example ${example} on 4 ranks" ${mpirun4} "${${example}_exe}")
    message(STATUS "install_consumer (example ${example}, 4 ranks): ${output}")
  endforeach()
endif()

# Without CMake: the compiler flags from pkg-config alone.
find_program(pkg_config pkg-config REQUIRED)
file(GLOB_RECURSE pc "${prefix}/*/pkgconfig/nnlb.pc")
if(NOT pc)
  message(FATAL_ERROR "install_consumer: no nnlb.pc installed under ${prefix}")
endif()
get_filename_component(pc_dir "${pc}" DIRECTORY)
run("pkg-config nnlb" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${pkg_config} --cflags --libs nnlb)
separate_arguments(flags UNIX_COMMAND "${output}")
# A shared-library build in a private prefix: the program is told where its libraries are, as a
# user of pkg-config does (docs/mpi.md, "Build and link").
run("pkg-config's libdir" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${pkg_config} --variable=libdir nnlb)
string(STRIP "${output}" libdir)
set(rpath "-Wl,-rpath,${libdir}")
if(NOT CXX)
  set(CXX c++)
endif()
run("building the consumer with pkg-config's flags" ${CXX} "${CONSUMER_DIR}/main.cpp" -o "${WORK_DIR}/consumer_pc" ${flags} ${rpath})
run("running the pkg-config consumer" "${WORK_DIR}/consumer_pc")
if(NOT output MATCHES "^nodes 16 rounds [1-9][0-9]* total 800.0\n$")
  message(FATAL_ERROR "install_consumer: unexpected output of the pkg-config consumer: '${output}'")
endif()
if(MPIEXEC)
  run("pkg-config nnlb-runtime" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${pkg_config} --cflags --libs nnlb-runtime)
  separate_arguments(flags UNIX_COMMAND "${output}")
  run("building the MPI consumer with pkg-config's flags" ${CXX} "${CONSUMER_DIR}/mpi_main.cpp" -o "${WORK_DIR}/consumer_mpi_pc" ${flags} ${rpath})
  run("running the pkg-config MPI consumer" ${mpirun} "${WORK_DIR}/consumer_mpi_pc")
  if(NOT output MATCHES "balanced 1 total 200.0\n")
    message(FATAL_ERROR "install_consumer: unexpected output of the pkg-config MPI consumer: '${output}'")
  endif()
endif()

