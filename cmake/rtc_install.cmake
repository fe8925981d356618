# Packaging: the shared library librtcosim, install rules, pkg-config file, man page and
# the Debian package (CPack). Included by the top-level CMakeLists.txt after every target
# exists.
#
# librtcosim.so.<major> is the embeddable engine: the rt-core layers up to the session and
# the wiring (assemble), fmu-host and io-drivers, linked from the very objects of their
# static libraries (compiled as PIC for this), exporting only the public rtc_* API
# (cmake/rtcosim.map).
#
# The operator surfaces (rt-core/surfaces: the OSC control surface and the HTTP panel) are
# not shipped to embedders: they are parts of the rtcosim command (--control-port,
# --http), their public API is only start/port/stop around options the command line
# fills in, and shipping them would tie every embedder to libmicrohttpd or add a second
# library and ABI to keep. So librtcosim.so does not need libmicrohttpd, panel.h and
# osc_control.h are not installed, and a program with a surface of its own builds it on
# rtcosim/session.h, as the built-in ones are (tests/install checks all three). The rtcosim executable,
# the tests and the benchmarks keep linking the static libraries: the CLI then resolves
# no engine symbol through the dynamic linker at run time (no lazy PLT binding on the RT
# thread, whose first call would otherwise enter ld.so), runs from the build tree without
# an rpath, and sanitizer builds keep instrumenting one program.
include(GNUInstallDirs)

set(rtc_lib_parts rtc_base rtc_load rtc_est rtc_system rtc_exec rtc_session rtc_assemble rtc_fmuhost
    rtc_iodrivers)
set_target_properties(${rtc_lib_parts} PROPERTIES POSITION_INDEPENDENT_CODE ON)

set(rtc_lib_objects)
foreach(part ${rtc_lib_parts})
    list(APPEND rtc_lib_objects $<TARGET_OBJECTS:${part}>)
endforeach()
# Target rtc_shared, file librtcosim.so (the name rtcosim is the executable's target).
add_library(rtc_shared SHARED ${rtc_lib_objects})
set_target_properties(rtc_shared PROPERTIES
    OUTPUT_NAME rtcosim
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/rtcosim.map)
target_link_options(rtc_shared PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/rtcosim.map)
if(NOT RTC_SANITIZE)
    # Every symbol resolved at link time (clang leaves the sanitizer runtime of a shared
    # library to the program, so sanitizer builds cannot ask for this).
    target_link_options(rtc_shared PRIVATE -Wl,--no-undefined)
endif()
target_link_libraries(rtc_shared PRIVATE rtc_warnings
    PkgConfig::LIBXML2 PkgConfig::MINIZIP PkgConfig::JANSSON PkgConfig::LIBLO PkgConfig::LIBMODBUS
    CycloneDDS::ddsc
    Threads::Threads m ${CMAKE_DL_LIBS})

# ---- install ----
install(TARGETS rtc_shared
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Runtime)
install(TARGETS rtcosim rtcosim-operator rtcosim-bench-sim rtcosim-fault-proxy
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# `rtcosim plot` runs rtcosim-plot from beside the rtcosim executable (gnuplot: Depends).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot DESTINATION ${CMAKE_INSTALL_BINDIR}
    RENAME rtcosim-plot)

# Public headers of every layer in librtcosim and of the sibling libraries, into
# include/rtcosim/ (not surfaces: see above). base/internal/ and src/*_priv.h are never
# installed (they are not under include/).
set(rtc_public_include_dirs)
foreach(layer base load est system exec session assemble)
    list(APPEND rtc_public_include_dirs ${PROJECT_SOURCE_DIR}/rt-core/${layer}/include/rtcosim/)
endforeach()
list(APPEND rtc_public_include_dirs ${PROJECT_SOURCE_DIR}/fmu-host/include/rtcosim/
    ${PROJECT_SOURCE_DIR}/io-drivers/include/rtcosim/)
install(DIRECTORY ${rtc_public_include_dirs}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rtcosim FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/generated/rtcosim/rtc_config.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rtcosim)

# rtcosim.pc, relocatable: "prefix" climbs from the .pc file's directory to the prefix.
set(RTC_PC_UP "..")
string(REGEX MATCHALL "[^/]+" rtc_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
foreach(part ${rtc_libdir_parts})
    string(APPEND RTC_PC_UP "/..")
endforeach()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    message(FATAL_ERROR "rtcosim.pc needs CMAKE_INSTALL_LIBDIR and CMAKE_INSTALL_INCLUDEDIR "
                        "relative to the prefix")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/rtcosim.pc.in ${PROJECT_BINARY_DIR}/rtcosim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rtcosim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# rtcosim(1) and one page per installed tool, generated from the built programs' own
# --help texts, so a manual can never say something the program's help does not;
# rtcosim(1) adds FILES, ENVIRONMENT and EXAMPLES from cmake/rtcosim-man.txt.
set(rtc_man_dir ${PROJECT_BINARY_DIR}/man)
set(rtc_tools rtcosim-plot rtcosim-operator rtcosim-bench-sim rtcosim-fault-proxy)
set(rtc_man ${rtc_man_dir}/rtcosim.1)
set(rtc_mans ${rtc_man})
string(REPLACE ";" "," rtc_tools_arg "${rtc_tools}")
add_custom_command(OUTPUT ${rtc_man}
    COMMAND ${CMAKE_COMMAND} -DRTCOSIM=$<TARGET_FILE:rtcosim> -DOUT=${rtc_man}
            -DVERSION=${PROJECT_VERSION} -DEXTRA=${PROJECT_SOURCE_DIR}/cmake/rtcosim-man.txt
            -DTOOLS=${rtc_tools_arg} -P ${PROJECT_SOURCE_DIR}/cmake/rtc_manpage.cmake
    DEPENDS rtcosim ${PROJECT_BINARY_DIR}/rtcosim-plot ${PROJECT_SOURCE_DIR}/cmake/rtc_manpage.cmake
            ${PROJECT_SOURCE_DIR}/cmake/rtcosim-man.txt
    COMMENT "Generating the man page rtcosim(1) from rtcosim --help")
foreach(tool ${rtc_tools})
    if(TARGET ${tool})
        set(exe $<TARGET_FILE:${tool}>)
    else() # the plot script: the build's copy (rt-core/app/CMakeLists.txt)
        set(exe ${PROJECT_BINARY_DIR}/${tool})
    endif()
    add_custom_command(OUTPUT ${rtc_man_dir}/${tool}.1
        COMMAND ${CMAKE_COMMAND} -DTOOL=${exe} -DNAME=${tool} -DOUT=${rtc_man_dir}/${tool}.1
                -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/rtc_manpage.cmake
        DEPENDS ${exe} ${PROJECT_SOURCE_DIR}/cmake/rtc_manpage.cmake
        COMMENT "Generating the man page ${tool}(1) from ${tool} --help")
    list(APPEND rtc_mans ${rtc_man_dir}/${tool}.1)
endforeach()
add_custom_target(rtc_manpage ALL DEPENDS ${rtc_mans})
install(FILES ${rtc_mans} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The example systems (configs/, packaged with the test FMUs they name) when they are built,
# so an installed copy has systems to run: share/rtcosim/examples/<name>.ssp.
if(RTC_BUILD_TESTS)
    install(DIRECTORY ${PROJECT_BINARY_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rtcosim/examples
        FILES_MATCHING PATTERN "*.ssp" PATTERN "stage" EXCLUDE PATTERN "CMakeFiles" EXCLUDE)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/configs/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
    RENAME configs.md)

# ---- Debian package: cpack -G DEB (or the `package` target) ----
# Depends comes from dpkg-shlibdeps on the packaged binaries and library, i.e. the Debian
# runtime packages of the libraries they link (libxml2, libminizip1, libjansson4, liblo7,
# libmodbus5, libc6, ...; libmicrohttpd12 for the command's HTTP panel), never the -dev
# packages; the shlibs file and ldconfig trigger of librtcosim.so.<major> are generated too.
# What the installed commands run besides their libraries is added by hand: rtcosim plot
# (rtcosim-plot) runs gnuplot (its PNG/SVG terminals are in every flavour; -nox is the
# smallest) and awk; bash, sed, grep and coreutils are Essential. `rtcosim bench
# --compare-cyclictest` runs cyclictest (rt-tests): recommended, as that comparison is
# the one option that needs it.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rtcosim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "rtcosim")
set(CPACK_PACKAGE_CONTACT "rtcosim maintainers <rtcosim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "real-time co-simulation engine for FMI 2.0/3.0 FMUs and SSP systems")
set(CPACK_PACKAGE_DESCRIPTION
    "rtcosim steps FMI 2.0/3.0 co-simulation FMUs coupled as an SSP system describes, paced
against the wall clock by a SCHED_FIFO thread, with Modbus and OSC bench I/O. This package
holds the rtcosim command with its plot script, its bench tools, the shared library
librtcosim with its C headers and pkg-config file, and the manuals.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gnuplot-nox | gnuplot, mawk | awk")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "rt-tests")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
include(CPack)
