# SPDX-License-Identifier: Apache-2.0
# Warning flags for our own targets (never for dependencies): trainer_set_warnings(<target>).

# TRAINER_SANITIZED: whether this build compiles or links with a sanitizer (the asan, tsan and
# fuzz presets). The one answer every part that builds differently under them reads.
string(CONCAT _trainer_all_flags "${CMAKE_C_FLAGS} ${CMAKE_CXX_FLAGS} ${CMAKE_EXE_LINKER_FLAGS} "
              "${CMAKE_SHARED_LINKER_FLAGS}")
if(_trainer_all_flags MATCHES "-fsanitize=")
  set(TRAINER_SANITIZED TRUE)
else()
  set(TRAINER_SANITIZED FALSE)
endif()
unset(_trainer_all_flags)

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
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND TRAINER_SANITIZED)
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
  endif()
endfunction()
