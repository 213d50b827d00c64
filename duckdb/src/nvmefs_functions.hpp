// SPDX-License-Identifier: BSD-3-Clause
#pragma once

#include "duckdb.hpp"

namespace duckdb {

class ExtensionLoader;
class NvmeFileSystem;

//! Registers nvmefs_format() and nvmefs_info()
void RegisterNvmeFunctions(ExtensionLoader &loader, NvmeFileSystem &fs);

} // namespace duckdb
