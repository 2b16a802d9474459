# SPDX-License-Identifier: Apache-2.0
# Warning flags for our own targets (never for dependencies): trainer_set_warnings(<target>).
function(trainer_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
      $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast>)
    if(TRAINER_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
    # GCC 12 reports -Wmaybe-uninitialized inside libstdc++'s <regex> and <functional> when
    # the sanitizers instrument them (GCC PR 105562 and kin): noise from the standard library
    # that no change of ours can silence. Plain builds keep the warning.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_FLAGS MATCHES "-fsanitize=")
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
  endif()
endfunction()
