# Writes OUT (a header defining MMT_VERSION and MMT_COMMIT) from VERSION and the git commit
# of SOURCE, touching it only when the text changes, so that a new commit rebuilds only
# what prints the version. Run at every build (tools/CMakeLists.txt).
execute_process(COMMAND git -C "${SOURCE}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR commit STREQUAL "")
  set(commit "unknown (not built from a git clone)")
endif()
set(text "#pragma once\n#define MMT_VERSION \"${VERSION}\"\n#define MMT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
