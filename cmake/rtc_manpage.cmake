# Generate rtcosim(1) from the built executable's --help texts (cmake -P script).
#   cmake -DRTCOSIM=<path to rtcosim> -DOUT=<rtcosim.1> -DVERSION=<x.y.z> -P rtc_manpage.cmake
#
# The page is the top-level `rtcosim --help` (synopsis, description, command list) and,
# for every command that list names, that command's own `--help`, verbatim: one text,
# two places. A command listed with a SYSTEM (or FMU) argument gets a dummy file name of
# that kind after --help, because `run` chooses its help (FMU or system) by the file's
# extension; --help is answered before any file is read.
cmake_minimum_required(VERSION 3.20)
foreach(v RTCOSIM OUT VERSION)
    if(NOT DEFINED ${v})
        message(FATAL_ERROR "rtc_manpage.cmake: -D${v}=... is required")
    endif()
endforeach()

function(run_help out_var)
    execute_process(COMMAND ${RTCOSIM} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR text STREQUAL "")
        message(FATAL_ERROR "rtc_manpage.cmake: 'rtcosim ${ARGN}' failed (${rc}): ${err}")
    endif()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Text as roff lines in a no-fill block: backslashes escaped, hyphens made literal
# minus signs (options stay copy-pastable), leading dots/quotes neutralised.
function(roff_verbatim out_var text)
    string(REPLACE "\\" "\\e" text "${text}")
    string(REPLACE "-" "\\-" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

run_help(main --help)
string(REGEX MATCH "\n\n([^\n]+)\n" _ "${main}")
set(summary "${CMAKE_MATCH_1}")
string(REGEX REPLACE "\\.$" "" summary "${summary}")
# (string(REGEX REPLACE) retries "^" after every match, so cut with FIND/SUBSTRING.)
string(SUBSTRING "${summary}" 0 1 first)
string(SUBSTRING "${summary}" 1 -1 rest)
string(TOLOWER "${first}" first)
set(summary "${first}${rest}")

string(REGEX MATCH "usage: ([^\n]*)" _ "${main}")
set(synopsis "${CMAKE_MATCH_1}")
string(FIND "${main}" "\n\n" cut)
math(EXPR cut "${cut} + 2")
string(SUBSTRING "${main}" ${cut} -1 description)

set(page ".\\\" Generated from 'rtcosim --help' by cmake/rtc_manpage.cmake; edit the help texts.\n")
string(APPEND page ".TH RTCOSIM 1 \"\" \"rtcosim ${VERSION}\" \"User Commands\"\n")
string(REPLACE "-" "\\-" summary_roff "${summary}")
string(APPEND page ".SH NAME\nrtcosim \\- ${summary_roff}\n")
roff_verbatim(block "${synopsis}\n")
string(APPEND page ".SH SYNOPSIS\n${block}")
roff_verbatim(block "${description}")
string(APPEND page ".SH DESCRIPTION\n${block}")
string(APPEND page ".SH COMMANDS\n")

# "  <command> [ARG]   description" lines of the "commands:" block.
string(REGEX MATCH "commands:\n(  [^\n]*\n)+" commands "${main}")
string(REGEX MATCHALL "  [a-z]+( [A-Z_]+)?  " entries "${commands}")
set(n 0)
foreach(entry ${entries})
    string(STRIP "${entry}" entry)
    string(REPLACE " " ";" words "${entry}")
    list(GET words 0 cmd)
    set(args ${cmd} --help)
    if(entry MATCHES " SYSTEM$")
        list(APPEND args SYSTEM.ssd)
    elseif(entry MATCHES " FMU$")
        list(APPEND args FMU.fmu)
    endif()
    run_help(text ${args})
    roff_verbatim(block "${text}")
    string(APPEND page ".SS \"rtcosim ${entry}\"\n${block}")
    math(EXPR n "${n} + 1")
endforeach()
if(n LESS 2)
    message(FATAL_ERROR "rtc_manpage.cmake: found ${n} commands in 'rtcosim --help'")
endif()

string(APPEND page ".SH SEE ALSO\n")
string(APPEND page "rtcosim\\-operator, rtcosim\\-bench\\-sim, rtcosim\\-fault\\-proxy (each has \\-\\-help); ")
string(APPEND page "the README in the documentation directory; the C API in \\fI<rtcosim/rtcosim.h>\\fR.\n")
file(WRITE "${OUT}.tmp" "${page}")
file(RENAME "${OUT}.tmp" "${OUT}")
