# One line per CUnit executable (see rtc_add_test in tests/CMakeLists.txt).
rtc_add_test(core LIBS rtc_rtcore)
