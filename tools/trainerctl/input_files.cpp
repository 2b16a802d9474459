// SPDX-License-Identifier: Apache-2.0
#include "input_files.hpp"

#include "output.hpp"

#include "trainer/convert.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <utility>

namespace trainerctl {
namespace {

// Reads at most `limit + 1` bytes so that an oversized file is refused without reading it all.
trainer::Result<std::string> read_bounded(std::istream& in, const std::string& name,
                                          std::size_t limit) {
  std::string text;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    const auto got = static_cast<std::size_t>(in.gcount());
    text.append(buf, got);
    if (text.size() > limit) {
      return trainer::fail(
          trainer::ErrorCode::kLimit,
          name + ": input exceeds the document size limit of " + std::to_string(limit) + " bytes");
    }
  }
  if (in.bad()) {
    return trainer::fail(trainer::ErrorCode::kIo, name + ": read failed");
  }
  return text;
}

}  // namespace

trainer::Result<std::vector<boost::json::value>> read_documents(
    const std::vector<std::string>& files, const trainer::DecodeOptions& options) {
  std::vector<boost::json::value> all;
  for (const auto& file : files) {
    trainer::Result<std::string> text;
    if (file == "-") {
      text = read_bounded(std::cin, "<stdin>", options.max_document_bytes);
    } else {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        return trainer::fail(trainer::ErrorCode::kIo,
                             file + ": cannot open: " + std::strerror(errno));
      }
      text = read_bounded(in, file, options.max_document_bytes);
    }
    if (!text) return tl::unexpected(text.error());
    auto docs = trainer::parse_documents(*text, options);
    if (!docs) {
      auto err = docs.error();
      err.message = file + ": " + err.message;
      return tl::unexpected(std::move(err));
    }
    std::move(docs->begin(), docs->end(), std::back_inserter(all));
  }
  return all;
}

trainer::Result<std::vector<boost::json::value>> read_job_documents(const Parsed& args) {
  auto docs = read_documents(args.values("filename"));
  if (!docs) return docs;
  trainer::convert::Options options;
  options.strict = args.enabled("strict");
  options.namespace_ = args.value("namespace");
  return trainer::convert::convert_documents(std::move(*docs), options, print_warning);
}

}  // namespace trainerctl
