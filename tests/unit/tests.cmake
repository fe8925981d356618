# One line per CUnit executable (see rtc_add_test in tests/CMakeLists.txt).
rtc_add_test(core LIBS rtc_rtcore)
rtc_add_test(numparse LIBS rtc_rtcore)
rtc_add_test(estimate SOURCES unit/test_estimate_filters.c unit/test_estimate_auto.c LIBS rtc_rtcore)
rtc_add_test(fmu_host SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus)
rtc_add_test(cli SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtcosim LABELS integration)
rtc_add_test(archive LIBS rtc_rtcore PkgConfig::MINIZIP)
rtc_add_test(fmu_md LIBS rtc_fmuhost)
rtc_add_test(ring LIBS rtc_rtcore)
rtc_add_test(ratelimit LIBS rtc_base)
rtc_add_test(fmus SOURCES unit/fmi_raw_util.c unit/test_fmus_fmi3.c LIBS ${CMAKE_DL_LIBS} rtc_fmi_headers m DEPENDS rtc_test_fmus)
rtc_add_test(pfast LIBS rtc_rtcore)
# every master strategy of the table (the system layer's internal masters/master_priv.h)
rtc_add_test(masters SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs)
target_include_directories(test_masters PRIVATE ${PROJECT_SOURCE_DIR}/rt-core/system/src)
rtc_add_test(system SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS unit rt)
rtc_add_test(ssp SOURCES unit/test_ssp_package.c LIBS rtc_rtcore PkgConfig::MINIZIP)
rtc_add_test(io_mailbox LIBS rtc_rtcore)
# the lock-step channel of a distributed fast run (issue 22), with real threads
rtc_add_test(lockstep LIBS rtc_base)
# a bench sample to an FMU input: one estimator, one conversion (issue 18 item 7)
rtc_add_test(value_path SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtcosim)
rtc_add_test(io_modbus SOURCES unit/io_util.c unit/io_cfg.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS LABELS io)
rtc_add_test(io_modbus_client SOURCES unit/io_util.c unit/io_cfg.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS LABELS io)
rtc_add_test(rt_hygiene SOURCES unit/fmu_util.c unit/rt_hygiene_util.c unit/proc_util.c LIBS rtc_fmuhost ${CMAKE_DL_LIBS} DEPENDS rtc_test_fmus rtc_configs LABELS rt io)
rtc_add_test(exec SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt)
rtc_add_test(io_osc SOURCES unit/io_util.c unit/io_cfg.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO LABELS io)
rtc_add_test(io_tools SOURCES unit/io_util.c unit/io_cfg.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS DEPENDS rtcosim-bench-sim rtcosim-fault-proxy LABELS integration io)
target_compile_definitions(test_io_tools PRIVATE RTC_BENCH_SIM_EXE="$<TARGET_FILE:rtcosim-bench-sim>" RTC_FAULT_PROXY_EXE="$<TARGET_FILE:rtcosim-fault-proxy>")
rtc_add_test(io_system SOURCES unit/fmu_util.c unit/io_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS DEPENDS rtc_test_fmus rtcosim rtcosim-bench-sim LABELS integration rt io)
target_compile_definitions(test_io_system PRIVATE RTC_BENCH_SIM_EXE="$<TARGET_FILE:rtcosim-bench-sim>")
rtc_add_test(io_contract SOURCES unit/fmu_util.c unit/io_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::JANSSON DEPENDS rtc_test_fmus rtc_configs rtcosim rtcosim-bench-sim rtcosim-fault-proxy LABELS integration rt io)
target_compile_definitions(test_io_contract PRIVATE RTC_BENCH_SIM_EXE="$<TARGET_FILE:rtcosim-bench-sim>" RTC_FAULT_PROXY_EXE="$<TARGET_FILE:rtcosim-fault-proxy>")
rtc_add_test(session SOURCES unit/fmu_util.c unit/io_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO DEPENDS rtc_test_fmus rtcosim rtcosim-bench-sim rtcosim-fault-proxy LABELS integration rt io)
target_compile_definitions(test_session PRIVATE RTC_BENCH_SIM_EXE="$<TARGET_FILE:rtcosim-bench-sim>" RTC_FAULT_PROXY_EXE="$<TARGET_FILE:rtcosim-fault-proxy>")
rtc_add_test(io_modbus_server SOURCES unit/io_util.c unit/io_cfg.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS LABELS io)
rtc_add_test(io_skeleton SOURCES unit/io_util.c unit/io_cfg.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS LABELS io)
# operator-session helpers shared by test_session and test_session_control; the operator
# console (scripts/operator) is exercised against live runs
target_sources(test_session PRIVATE unit/session_util.c)
rtc_add_test(session_control SOURCES unit/fmu_util.c unit/io_util.c unit/session_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO DEPENDS rtc_test_fmus rtcosim rtcosim-operator LABELS integration io)
target_compile_definitions(test_session_control PRIVATE RTC_OPERATOR_DIR="$<TARGET_FILE_DIR:rtcosim-operator>" RTC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# rt_hygiene: a live session with an OSC I/O unit (issue 10 item 8)
target_link_libraries(test_rt_hygiene PRIVATE rtc_iodrivers PkgConfig::LIBLO)
rtc_add_test(stop SOURCES unit/fmu_util.c unit/proc_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt)
# issue 19: every way the process ends takes the stop path (file-size limit, closed pipe,
# SIGHUP under nohup, a refused summary, a unit ending at its initial event)
rtc_add_test(signals SOURCES unit/fmu_util.c unit/proc_util.c LIBS rtc_fmuhost PkgConfig::JANSSON DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt)
rtc_add_test(conformance SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtcosim)
target_compile_definitions(test_conformance PRIVATE RTC_TEST_FMU_SRC="${CMAKE_CURRENT_SOURCE_DIR}/fmus")
rtc_add_test(ssp_conformance SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtcosim LABELS integration)
rtc_add_test(json SOURCES unit/fmu_util.c LIBS rtc_fmuhost rtc_base_json DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt)
# issue 13: every exported symbol of the libraries carries the rtc_ prefix
add_test(NAME lib_symbols COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/integration/lib_symbols.sh ${CMAKE_NM} $<TARGET_FILE:rtc_base> $<TARGET_FILE:rtc_load> $<TARGET_FILE:rtc_est> $<TARGET_FILE:rtc_system> $<TARGET_FILE:rtc_exec> $<TARGET_FILE:rtc_session> $<TARGET_FILE:rtc_surfaces> $<TARGET_FILE:rtc_assemble> $<TARGET_FILE:rtc_iodrivers> $<TARGET_FILE:rtc_fmuhost>)
# issue 13: each public io-drivers header compiles alone, with no third-party header
set(RTC_PUBLIC_INCLUDE_FLAGS -I${PROJECT_BINARY_DIR}/generated)
foreach(layer base load est system exec session surfaces assemble)
    list(APPEND RTC_PUBLIC_INCLUDE_FLAGS -I${PROJECT_SOURCE_DIR}/rt-core/${layer}/include)
endforeach()
list(APPEND RTC_PUBLIC_INCLUDE_FLAGS -I${PROJECT_SOURCE_DIR}/fmu-host/include
    -I${PROJECT_SOURCE_DIR}/io-drivers/include)
add_test(NAME io_headers_alone COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/integration/header_alone.sh ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR}/io-drivers/include ${RTC_PUBLIC_INCLUDE_FLAGS})
rtc_test_properties(lib_symbols unit)
rtc_test_properties(io_headers_alone unit)
# issue 13: summary.json shows each I/O unit only its own driver's counters (parsed by jansson)
target_link_libraries(test_io_system PRIVATE PkgConfig::JANSSON)
# ... and so does every other public header of the libraries (no third-party header either)
foreach(dir rt-core/base rt-core/load rt-core/est rt-core/system rt-core/exec rt-core/session
        rt-core/surfaces rt-core/assemble fmu-host)
    string(REPLACE "/" "_" name "headers_alone_${dir}")
    string(REPLACE "-" "" name "${name}")
    add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/integration/header_alone.sh ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR}/${dir}/include ${RTC_PUBLIC_INCLUDE_FLAGS})
    rtc_test_properties(${name} unit)
endforeach()
# issue 13: the embedding entry point rtc_fmu_load_system (rt-core/assemble)
rtc_add_test(embed SOURCES unit/fmu_util.c LIBS rtc_fmuhost rtc_iodrivers DEPENDS rtc_test_fmus rtc_configs)
# Source checks of the layered library (tests/check/check_sources.py): no include of a higher
# layer or of another folder's private header, no third-party header in a public one,
# RTC_RT_SAFE defined once and matching every "RT-safe: yes", one thread creator, one
# monotonic clock. The self test plants each violation in a temporary tree.
add_test(NAME check_sources
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/check/check_sources.py ${PROJECT_SOURCE_DIR})
add_test(NAME check_sources_selftest
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/check/check_sources.py --selftest)
rtc_test_properties(check_sources unit)
rtc_test_properties(check_sources_selftest unit)
rtc_add_test(fmi3_events SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtcosim LABELS integration rt)
# issue 20: every option of every command through the one checker (the CLI's own tables,
# rt-core/app/cli_opts.c, walked), a single FMU as a system of one unit
rtc_add_test(cli_options SOURCES unit/fmu_util.c ${PROJECT_SOURCE_DIR}/rt-core/app/cli_opts.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt)
target_include_directories(test_cli_options PRIVATE ${PROJECT_SOURCE_DIR}/rt-core/app)
# the browser operator panel (issue 14 item 3): its HTTP server attacked over real sockets,
# and driven in headless Chromium (skipped with the reason when chromium is absent)
rtc_add_test(panel SOURCES unit/io_util.c unit/session_util.c unit/fmu_util.c unit/panel_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt io)
add_test(NAME panel_browser COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/integration/panel_browser.py $<TARGET_FILE:rtcosim> ${PROJECT_BINARY_DIR}/configs/controller-plant.ssp ${CMAKE_CURRENT_BINARY_DIR}/panel_browser ${RTC_TEST_FMU_DIR}/fmi2)
rtc_test_properties(panel_browser integration rt io)
set_tests_properties(panel_browser PROPERTIES SKIP_RETURN_CODE 77)
# the panel's answers and frames are parsed as JSON (jansson), not matched as text
target_link_libraries(test_panel PRIVATE PkgConfig::JANSSON)
# the panel's admission, deadlines, token throttle and Origin rule (issue 19 item 3)
rtc_add_test(panel_trust SOURCES unit/io_util.c unit/session_util.c unit/fmu_util.c unit/panel_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO PkgConfig::JANSSON DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt io)
# what a page opened mid-run shows (issue 19): the present, the engine's history, units,
# link directions, exposed values
rtc_add_test(panel_view SOURCES unit/io_util.c unit/session_util.c unit/fmu_util.c unit/panel_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt io)
target_link_libraries(test_panel_view PRIVATE PkgConfig::JANSSON)
rtc_add_test(cli_ux SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt)
rtc_add_test(operator_ux SOURCES unit/fmu_util.c unit/io_util.c unit/session_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO DEPENDS rtc_test_fmus rtcosim rtcosim-operator LABELS integration io rt)
target_compile_definitions(test_operator_ux PRIVATE RTC_OPERATOR_DIR="$<TARGET_FILE_DIR:rtcosim-operator>" RTC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
rtc_add_test(me SOURCES unit/fmu_util.c LIBS rtc_fmuhost rtc_base_json DEPENDS rtc_test_fmus rtcosim LABELS integration rt)
# issue 20: what the product promises a user of a fresh clone (configs/ folders, plots, ...)
rtc_add_test(product SOURCES unit/fmu_util.c LIBS rtc_fmuhost DEPENDS rtc_test_fmus rtc_configs rtcosim rtcosim-bench-sim LABELS integration rt io)
target_compile_definitions(test_product PRIVATE RTC_SOURCE_DIR="${PROJECT_SOURCE_DIR}" RTC_CONFIG_FMUS=$<BOOL:${RTC_CONFIG_FMUS}> RTC_BENCH_SIM_EXE="$<TARGET_FILE:rtcosim-bench-sim>")
target_link_libraries(test_product PRIVATE PkgConfig::JANSSON)
# issue 22: distributed runs over Cyclone DDS, nodes as separate processes on loopback;
# node_subscriber is a DDS program built from the IDL alone (it does not link rtcosim)
idlc_generate(TARGET rtc_test_node_idl FILES ${PROJECT_SOURCE_DIR}/io-drivers/idl/rtcosim_node.idl
              DEFAULT_EXTENSIBILITY final)
add_executable(node_subscriber integration/node_subscriber.c)
target_link_libraries(node_subscriber PRIVATE rtc_test_node_idl CycloneDDS::ddsc)
rtc_add_test(distributed SOURCES unit/proc_util.c DEPENDS rtc_configs rtcosim node_subscriber LABELS integration)
target_compile_definitions(test_distributed PRIVATE RTC_NODE_SUBSCRIBER_EXE="$<TARGET_FILE:node_subscriber>")
# real time: replay, a killed node, Ctrl-C on one node, a delayed lossy link's estimators
rtc_add_test(distributed_rt SOURCES unit/proc_util.c DEPENDS rtc_configs rtcosim LABELS integration)
# issue 21: the coupling monitor in summary.json, the default estimator of a late link, and
# `rtcosim tune` on a recorded session of the main job (bench simulator behind the fault
# proxy) and of a pure co-simulation
rtc_add_test(tune SOURCES unit/fmu_util.c unit/io_util.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO PkgConfig::JANSSON DEPENDS rtc_test_fmus rtc_configs rtcosim rtcosim-bench-sim rtcosim-fault-proxy LABELS integration rt io)
target_compile_definitions(test_tune PRIVATE RTC_BENCH_SIM_EXE="$<TARGET_FILE:rtcosim-bench-sim>" RTC_FAULT_PROXY_EXE="$<TARGET_FILE:rtcosim-fault-proxy>")
# ... and across two network namespaces joined by a veth pair the test makes and removes
# (exit 77, counted as skipped, without CAP_NET_ADMIN)
add_test(NAME distributed_netns COMMAND bash ${PROJECT_SOURCE_DIR}/tests/integration/distributed_netns.sh
         $<TARGET_FILE:rtcosim> ${PROJECT_BINARY_DIR}/configs)
rtc_test_properties(distributed_netns integration)
set_tests_properties(distributed_netns PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME distributed_netns_rt COMMAND bash ${PROJECT_SOURCE_DIR}/tests/integration/distributed_netns.sh
         $<TARGET_FILE:rtcosim> ${PROJECT_BINARY_DIR}/configs realtime)
rtc_test_properties(distributed_netns_rt integration)
set_tests_properties(distributed_netns_rt PROPERTIES SKIP_RETURN_CODE 77)
# issue 25: the DCP 1.0 codec (golden byte strings both ways) and its rules
rtc_add_test(dcp_pdu LIBS rtc_base m)
rtc_add_test(dcp_rules LIBS rtc_base m)
rtc_add_test(dcp_dcpx SOURCES unit/io_util.c LIBS rtc_base PkgConfig::LIBMODBUS)
# the DCP master driver against a DCP slave over real UDP (tests/unit/dcp_peer.c)
rtc_add_test(dcp_master SOURCES unit/io_util.c unit/io_cfg.c unit/dcp_peer.c LIBS rtc_iodrivers PkgConfig::LIBMODBUS LABELS io)
# a DCP slave component in a system: info/check, refusals, a session beside Modbus and OSC
# I/O replayed identically, a hostile slave (rtcosim runs; the slave is tests/unit/dcp_peer.c)
rtc_add_test(dcp_system SOURCES unit/fmu_util.c unit/io_util.c unit/session_util.c unit/dcp_peer.c LIBS rtc_fmuhost rtc_iodrivers PkgConfig::LIBMODBUS PkgConfig::LIBLO PkgConfig::JANSSON DEPENDS rtc_test_fmus rtcosim LABELS integration rt io)
# a junk-spraying and a mute DCP slave against a real-time run under the RT-hygiene judge
rtc_add_test(dcp_rt SOURCES unit/fmu_util.c unit/io_util.c unit/session_util.c unit/dcp_peer.c unit/rt_hygiene_util.c LIBS rtc_fmuhost rtc_iodrivers ${CMAKE_DL_LIBS} PkgConfig::LIBMODBUS PkgConfig::LIBLO DEPENDS rtc_test_fmus LABELS rt io)
rtc_add_test(plan SOURCES unit/fmu_util.c LIBS rtc_fmuhost rtc_iodrivers DEPENDS rtc_test_fmus rtc_configs)
rtc_add_test(feasibility SOURCES unit/fmu_util.c unit/io_util.c LIBS rtc_fmuhost PkgConfig::LIBMODBUS PkgConfig::JANSSON DEPENDS rtc_test_fmus rtc_configs rtcosim LABELS integration rt io)

# Two tests load the machine on purpose: feasibility burns a core at SCHED_FIFO 80 (a unit
# that needs 150 % of its period, a forced run, an 85 % tight one) and io_contract runs two
# busy loops beside the demo. Beside them, another test's nodes or links miss their
# deadlines for reasons of this machine, not of their code (distributed_rt's panel case
# failed once in CI under ASan while feasibility ran beside it), so each runs alone.
set_tests_properties(feasibility io_contract PROPERTIES RUN_SERIAL TRUE)
