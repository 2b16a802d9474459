// SPDX-License-Identifier: Apache-2.0
//
// Boost.JSON compiled into trainer-pod (Boost's documented header-only use: this one file), so
// the helper needs no libboost_json at run time and links statically (lib/local/CMakeLists.txt).
#include <boost/json/src.hpp>
