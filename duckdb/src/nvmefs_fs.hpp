// SPDX-License-Identifier: BSD-3-Clause
//
// The DuckDB FileSystem serving "nvmefs://<name>" from a volume. Which device a path lives on
// is configured by the DuckDB secret of type nvmefs whose scope matches the path.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "duckdb.hpp"
#include "duckdb/common/file_system.hpp"
#include "volume.hpp"

namespace duckdb {

constexpr const char *NVMEFS_SCHEME = "nvmefs://";
constexpr const char *NVMEFS_SECRET_TYPE = "nvmefs";

//! Device configuration of the secret matching `path`; throws a clear error when none matches
nvmefs::DeviceConfig LookupDeviceConfig(DatabaseInstance &db, optional_ptr<FileOpener> opener, const string &path);

class NvmeFileHandle : public FileHandle {
public:
	NvmeFileHandle(FileSystem &fs, const string &path, FileOpenFlags flags, std::shared_ptr<nvmefs::Volume> volume,
	               std::shared_ptr<nvmefs::FileNode> node);
	~NvmeFileHandle() override;
	void Close() override;

	std::shared_ptr<nvmefs::Volume> volume;
	std::shared_ptr<nvmefs::FileNode> node;
	idx_t position = 0;
	bool closed = false;
};

class NvmeFileSystem : public FileSystem {
public:
	explicit NvmeFileSystem(DatabaseInstance &db);
	~NvmeFileSystem() override;

	//! Volume and in-volume name of a path; `mounted` also checks the volume is usable
	std::shared_ptr<nvmefs::Volume> Resolve(const string &path, optional_ptr<FileOpener> opener, string &name,
	                                   bool mounted = true);
	static string NormalizeName(const string &path);
	static bool IsNvmePath(const string &path);

	unique_ptr<FileHandle> OpenFile(const string &path, FileOpenFlags flags,
	                                optional_ptr<FileOpener> opener = nullptr) override;
	void Read(FileHandle &handle, void *buffer, int64_t nr_bytes, idx_t location) override;
	void Write(FileHandle &handle, void *buffer, int64_t nr_bytes, idx_t location) override;
	int64_t Read(FileHandle &handle, void *buffer, int64_t nr_bytes) override;
	int64_t Write(FileHandle &handle, void *buffer, int64_t nr_bytes) override;
	bool Trim(FileHandle &handle, idx_t offset_bytes, idx_t length_bytes) override;
	int64_t GetFileSize(FileHandle &handle) override;
	timestamp_t GetLastModifiedTime(FileHandle &handle) override;
	FileType GetFileType(FileHandle &handle) override;
	void Truncate(FileHandle &handle, int64_t new_size) override;
	void FileSync(FileHandle &handle) override;

	bool DirectoryExists(const string &directory, optional_ptr<FileOpener> opener = nullptr) override;
	void CreateDirectory(const string &directory, optional_ptr<FileOpener> opener = nullptr) override;
	void RemoveDirectory(const string &directory, optional_ptr<FileOpener> opener = nullptr) override;
	bool ListFiles(const string &directory, const std::function<void(const string &, bool)> &callback,
	               FileOpener *opener = nullptr) override;
	void MoveFile(const string &source, const string &target, optional_ptr<FileOpener> opener = nullptr) override;
	bool FileExists(const string &filename, optional_ptr<FileOpener> opener = nullptr) override;
	bool IsPipe(const string &filename, optional_ptr<FileOpener> opener = nullptr) override;
	void RemoveFile(const string &filename, optional_ptr<FileOpener> opener = nullptr) override;
	bool TryRemoveFile(const string &filename, optional_ptr<FileOpener> opener = nullptr) override;
	vector<OpenFileInfo> Glob(const string &path, FileOpener *opener = nullptr) override;

	void Seek(FileHandle &handle, idx_t location) override;
	void Reset(FileHandle &handle) override;
	idx_t SeekPosition(FileHandle &handle) override;
	bool CanSeek() override;
	bool OnDiskFile(FileHandle &handle) override;
	FileWriteMode GetWriteMode(FileHandle &handle) override;
	bool CanHandleFile(const string &fpath) override;
	string PathSeparator(const string &path) override;
	bool IsPathAbsolute(const string &path) override;
	std::string GetName() const override {
		return "NvmeFileSystem";
	}

private:
	DatabaseInstance &db;
	std::mutex bound_lock;
	//! Volumes this database instance uses (keeps them open while it lives)
	std::map<std::string, std::shared_ptr<nvmefs::Volume>> bound;
};

} // namespace duckdb
