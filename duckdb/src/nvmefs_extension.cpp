// SPDX-License-Identifier: BSD-3-Clause
//
// Entry point of the nvmefs DuckDB extension: registers the file system for nvmefs:// paths,
// the nvmefs secret type and the nvmefs_format()/nvmefs_info() functions.
#include "duckdb.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "nvmefs_fs.hpp"
#include "nvmefs_functions.hpp"
#include "nvmefs_secret.hpp"

namespace duckdb {

static void LoadInternal(ExtensionLoader &loader) {
	auto &db = loader.GetDatabaseInstance();
	auto fs = make_uniq<NvmeFileSystem>(db);
	auto &fs_ref = *fs;
	db.GetFileSystem().RegisterSubSystem(std::move(fs));
	RegisterNvmeSecret(loader);
	RegisterNvmeFunctions(loader, fs_ref);
	loader.SetDescription("DuckDB storage (database, WAL, temporary files) on NVMe logical blocks through xNVMe");
}

} // namespace duckdb

extern "C" {
DUCKDB_CPP_EXTENSION_ENTRY(nvmefs, loader) {
	duckdb::LoadInternal(loader);
}
}
