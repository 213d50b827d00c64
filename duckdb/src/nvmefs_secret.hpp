// SPDX-License-Identifier: BSD-3-Clause
#pragma once

#include "duckdb.hpp"

namespace duckdb {

class ExtensionLoader;

//! Registers the "nvmefs" secret type and its "config" provider
void RegisterNvmeSecret(ExtensionLoader &loader);

} // namespace duckdb
