# Generate a man page from a built program's --help texts (cmake -P script).
#   rtcosim(1):  cmake -DRTCOSIM=<rtcosim> -DOUT=<rtcosim.1> -DVERSION=<x.y.z>
#                      -DEXTRA=<cmake/rtcosim-man.txt> -DTOOLS=<tool,...> -P rtc_manpage.cmake
#   a tool's:    cmake -DTOOL=<program> -DNAME=<name> -DOUT=<name.1> -DVERSION=<x.y.z>
#                      -P rtc_manpage.cmake
#
# rtcosim(1) is the top-level `rtcosim --help` (synopsis, description, command list; its
# "exit status:" block becomes EXIT STATUS) and, for every command that list names, that
# command's own `--help`, verbatim: one text, two places. A command listed with a SYSTEM
# (or FMU) argument gets a dummy file name of that kind after --help, because `run`
# chooses its help (FMU or system) by the file's extension; --help is answered before any
# file is read. FILES, ENVIRONMENT and EXAMPLES come from EXTRA ("[SECTION]" lines start
# each), SEE ALSO names the tools' pages.
# A tool's page: NAME from the first line of its --help after the usage lines, SYNOPSIS
# the usage lines, DESCRIPTION the whole text, SEE ALSO rtcosim(1).
cmake_minimum_required(VERSION 3.20)
foreach(v OUT VERSION)
    if(NOT DEFINED ${v})
        message(FATAL_ERROR "rtc_manpage.cmake: -D${v}=... is required")
    endif()
endforeach()

function(run_help out_var)
    execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR text STREQUAL "")
        message(FATAL_ERROR "rtc_manpage.cmake: '${ARGN}' failed (${rc}): ${err}")
    endif()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Text as roff lines in a no-fill block: backslashes escaped, hyphens made literal
# minus signs (options stay copy-pastable), leading dots/quotes neutralised, the help
# texts' few non-ASCII characters as roff glyphs (a page is ASCII whatever the locale).
function(roff_verbatim out_var text)
    string(REPLACE "\\" "\\e" text "${text}")
    string(REPLACE "-" "\\-" text "${text}")
    string(REPLACE "µ" "\\(mc" text "${text}")
    string(REPLACE "—" "\\(em" text "${text}")
    string(REPLACE "±" "\\(+-" text "${text}")
    string(REPLACE "·" "\\(pc" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

# "Abc def." -> "abc def" (the NAME line's summary).
function(summary_of out_var line)
    string(REGEX REPLACE "\\.$" "" line "${line}")
    string(SUBSTRING "${line}" 0 1 first)
    string(SUBSTRING "${line}" 1 -1 rest)
    string(TOLOWER "${first}" first)
    string(REPLACE "-" "\\-" line "${first}${rest}")
    set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

function(write_page text)
    file(WRITE "${OUT}.tmp" "${text}")
    file(RENAME "${OUT}.tmp" "${OUT}")
endfunction()

# ---- a tool's page ----
if(DEFINED TOOL)
    run_help(help ${TOOL} --help)
    # the usage lines (the first, and those indented under it), then the summary line
    string(REGEX MATCH "^usage: [^\n]*\n(  +[^\n]*\n)*" usage "${help}")
    string(LENGTH "${usage}" n)
    string(SUBSTRING "${help}" ${n} -1 after)
    string(REGEX MATCH "^[^\n]+" first "${after}")
    string(REGEX REPLACE "\\. .*" "." first "${first}")
    if(usage STREQUAL "" OR first STREQUAL "")
        message(FATAL_ERROR "rtc_manpage.cmake: '${TOOL} --help' has no usage and summary line")
    endif()
    summary_of(summary "${first}")
    string(REGEX REPLACE "^usage: " "" usage "${usage}")
    string(REPLACE "\n       " "\n" usage "${usage}") # under "usage: "
    string(TOUPPER "${NAME}" upper)
    set(page ".\\\" Generated from '${NAME} --help' by cmake/rtc_manpage.cmake; edit the help text.\n")
    string(APPEND page ".TH ${upper} 1 \"\" \"rtcosim ${VERSION}\" \"User Commands\"\n.nh\n")
    string(REPLACE "-" "\\-" name_roff "${NAME}")
    string(APPEND page ".SH NAME\n${name_roff} \\- ${summary}\n")
    roff_verbatim(block "${usage}")
    string(APPEND page ".SH SYNOPSIS\n${block}")
    roff_verbatim(block "${help}")
    string(APPEND page ".SH DESCRIPTION\n${block}")
    string(APPEND page ".SH SEE ALSO\n.BR rtcosim (1)\n")
    write_page("${page}")
    return()
endif()

# ---- rtcosim(1) ----
foreach(v RTCOSIM EXTRA)
    if(NOT DEFINED ${v})
        message(FATAL_ERROR "rtc_manpage.cmake: -D${v}=... is required")
    endif()
endforeach()
run_help(main ${RTCOSIM} --help)
string(REGEX MATCH "\n\n([^\n]+)\n" _ "${main}")
summary_of(summary "${CMAKE_MATCH_1}")

string(REGEX MATCH "usage: ([^\n]*)" _ "${main}")
set(synopsis "${CMAKE_MATCH_1}")
string(FIND "${main}" "\n\n" cut)
math(EXPR cut "${cut} + 2")
string(SUBSTRING "${main}" ${cut} -1 description)
# the "exit status:" block is its own section
string(FIND "${description}" "\nexit status:\n" at)
if(at EQUAL -1)
    message(FATAL_ERROR "rtc_manpage.cmake: 'rtcosim --help' has no \"exit status:\" block")
endif()
math(EXPR from "${at} + 14")
string(SUBSTRING "${description}" ${from} -1 exit_status)
string(SUBSTRING "${description}" 0 ${at} description)
string(APPEND description "\n")

set(page ".\\\" Generated from 'rtcosim --help' by cmake/rtc_manpage.cmake; edit the help texts.\n")
string(APPEND page ".TH RTCOSIM 1 \"\" \"rtcosim ${VERSION}\" \"User Commands\"\n.nh\n")
string(APPEND page ".SH NAME\nrtcosim \\- ${summary}\n")
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
    run_help(text ${RTCOSIM} ${args})
    roff_verbatim(block "${text}")
    string(APPEND page ".SS \"rtcosim ${entry}\"\n${block}")
    math(EXPR n "${n} + 1")
endforeach()
if(n LESS 2)
    message(FATAL_ERROR "rtc_manpage.cmake: found ${n} commands in 'rtcosim --help'")
endif()
roff_verbatim(block "${exit_status}")
string(APPEND page ".SH \"EXIT STATUS\"\n${block}")

# FILES, ENVIRONMENT, EXAMPLES: "[SECTION]" starts each in EXTRA.
file(READ "${EXTRA}" extra)
foreach(section FILES ENVIRONMENT EXAMPLES)
    string(FIND "\n${extra}" "\n[${section}]\n" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "rtc_manpage.cmake: ${EXTRA} has no [${section}] section")
    endif()
    string(LENGTH "[${section}]\n" skip)
    math(EXPR at "${at} + ${skip}")
    string(SUBSTRING "${extra}" ${at} -1 text)
    string(FIND "${text}" "\n[" end) # the next section, if any
    if(NOT end EQUAL -1)
        math(EXPR end "${end} + 1")
        string(SUBSTRING "${text}" 0 ${end} text)
    endif()
    roff_verbatim(block "${text}")
    string(APPEND page ".SH ${section}\n${block}")
endforeach()

string(APPEND page ".SH \"SEE ALSO\"\n")
string(REPLACE "," ";" TOOLS "${TOOLS}")
foreach(tool ${TOOLS})
    string(REPLACE "-" "\\-" t "${tool}")
    string(APPEND page ".BR ${t} (1),\n")
endforeach()
string(APPEND page "the README and configs.md in the documentation directory\n")
string(APPEND page "(/usr/share/doc/rtcosim); the C API in \\fI<rtcosim/rtcosim.h>\\fR.\n")
write_page("${page}")
