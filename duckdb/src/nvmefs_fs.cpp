// SPDX-License-Identifier: BSD-3-Clause
#include "nvmefs_fs.hpp"

#include <fnmatch.h>

#include "duckdb/common/string_util.hpp"
#include "duckdb/common/types/timestamp.hpp"

namespace duckdb {

// nvmefs errors become DuckDB IO errors with the same message
#define NVMEFS_TRY try {
#define NVMEFS_CATCH                                                                                                   \
	}                                                                                                                  \
	catch (const nvmefs::Error &e) {                                                                                   \
		throw IOException(string(e.what()));                                                                           \
	}

static NvmeFileHandle &AsNvme(FileHandle &handle) {
	return handle.Cast<NvmeFileHandle>();
}

NvmeFileHandle::NvmeFileHandle(FileSystem &fs, const string &path, FileOpenFlags flags,
                               std::shared_ptr<nvmefs::Volume> volume_p, std::shared_ptr<nvmefs::FileNode> node_p)
    : FileHandle(fs, path, flags), volume(std::move(volume_p)), node(std::move(node_p)) {
}

NvmeFileHandle::~NvmeFileHandle() {
	try {
		Close();
	} catch (...) { // NOLINT: destructors must not throw
	}
}

void NvmeFileHandle::Close() {
	if (closed) {
		return;
	}
	closed = true;
	NVMEFS_TRY
	volume->Close(node);
	NVMEFS_CATCH
}

NvmeFileSystem::NvmeFileSystem(DatabaseInstance &db_p) : db(db_p) {
}

NvmeFileSystem::~NvmeFileSystem() {
}

static bool HasScheme(const string &path) {
	return StringUtil::Lower(path.substr(0, 9)) == NVMEFS_SCHEME;
}

bool NvmeFileSystem::IsNvmePath(const string &path) {
	return HasScheme(path);
}

bool NvmeFileSystem::CanHandleFile(const string &fpath) {
	return HasScheme(fpath);
}

string NvmeFileSystem::NormalizeName(const string &path) {
	string rest = path.substr(HasScheme(path) ? 9 : 0);
	vector<string> parts;
	for (auto &part : StringUtil::Split(rest, '/')) {
		if (part.empty() || part == ".") {
			continue;
		}
		if (part == "..") {
			if (!parts.empty()) {
				parts.pop_back();
			}
			continue;
		}
		parts.push_back(part);
	}
	return StringUtil::Join(parts, "/");
}

std::shared_ptr<nvmefs::Volume> NvmeFileSystem::Resolve(const string &path, optional_ptr<FileOpener> opener,
                                                        string &name, bool mounted) {
	name = NormalizeName(path);
	auto config = LookupDeviceConfig(db, opener, path);
	auto key = config.Key();
	std::shared_ptr<nvmefs::Volume> volume;
	{
		std::lock_guard<std::mutex> guard(bound_lock);
		auto it = bound.find(key);
		if (it != bound.end()) {
			volume = it->second;
		}
	}
	NVMEFS_TRY
	if (!volume) {
		volume = nvmefs::Volume::Acquire(config);
		std::lock_guard<std::mutex> guard(bound_lock);
		bound[key] = volume;
	}
	if (mounted) {
		volume->EnsureMounted();
	}
	NVMEFS_CATCH
	return volume;
}

unique_ptr<FileHandle> NvmeFileSystem::OpenFile(const string &path, FileOpenFlags flags,
                                                optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(path, opener, name);
	bool create = flags.CreateFileIfNotExists() || flags.OverwriteExistingFile();
	bool truncate = flags.OverwriteExistingFile();
	bool exclusive = flags.ExclusiveCreate() || flags.ReturnNullIfExists();
	std::shared_ptr<nvmefs::FileNode> node;
	nvmefs::Volume::OpenResult result;
	NVMEFS_TRY
	result = volume->Open(name, create && flags.OpenForWriting(), truncate, exclusive, node);
	NVMEFS_CATCH
	switch (result) {
	case nvmefs::Volume::OpenResult::NOT_FOUND:
		if (flags.ReturnNullIfNotExists()) {
			return nullptr;
		}
		throw IOException("Cannot open file \"%s\": No such file or directory", path);
	case nvmefs::Volume::OpenResult::EXISTS:
		if (flags.ReturnNullIfExists()) {
			return nullptr;
		}
		throw IOException("Cannot open file \"%s\": File exists", path);
	case nvmefs::Volume::OpenResult::IS_DIR:
		throw IOException("Cannot open file \"%s\": Is a directory", path);
	default:
		break;
	}
	auto handle = make_uniq<NvmeFileHandle>(*this, path, flags, volume, node);
	if (flags.OpenForAppending()) {
		handle->position = node->size.load();
	}
	return std::move(handle);
}

void NvmeFileSystem::Read(FileHandle &handle, void *buffer, int64_t nr_bytes, idx_t location) {
	auto &h = AsNvme(handle);
	uint64_t size = h.node->size.load();
	if (nr_bytes < 0 || location + uint64_t(nr_bytes) > size) {
		throw IOException("Could not read all bytes from file \"%s\": wanted=%lld read=%lld", handle.path,
		                  (long long)nr_bytes, (long long)(location < size ? size - location : 0));
	}
	NVMEFS_TRY
	h.volume->Read(*h.node, buffer, uint64_t(nr_bytes), location);
	NVMEFS_CATCH
}

void NvmeFileSystem::Write(FileHandle &handle, void *buffer, int64_t nr_bytes, idx_t location) {
	auto &h = AsNvme(handle);
	if (nr_bytes < 0) {
		throw IOException("Could not write file \"%s\": negative size", handle.path);
	}
	NVMEFS_TRY
	h.volume->Write(*h.node, buffer, uint64_t(nr_bytes), location);
	NVMEFS_CATCH
}

int64_t NvmeFileSystem::Read(FileHandle &handle, void *buffer, int64_t nr_bytes) {
	auto &h = AsNvme(handle);
	uint64_t size = h.node->size.load();
	uint64_t avail = h.position < size ? size - h.position : 0;
	uint64_t n = nr_bytes < 0 ? 0 : std::min<uint64_t>(uint64_t(nr_bytes), avail);
	NVMEFS_TRY
	h.volume->Read(*h.node, buffer, n, h.position);
	NVMEFS_CATCH
	h.position += n;
	return int64_t(n);
}

int64_t NvmeFileSystem::Write(FileHandle &handle, void *buffer, int64_t nr_bytes) {
	auto &h = AsNvme(handle);
	if (h.flags.OpenForAppending()) {
		h.position = h.node->size.load();
	}
	Write(handle, buffer, nr_bytes, h.position);
	h.position += uint64_t(nr_bytes);
	return nr_bytes;
}

bool NvmeFileSystem::Trim(FileHandle &handle, idx_t offset_bytes, idx_t length_bytes) {
	return false;
}

int64_t NvmeFileSystem::GetFileSize(FileHandle &handle) {
	return int64_t(AsNvme(handle).node->size.load());
}

timestamp_t NvmeFileSystem::GetLastModifiedTime(FileHandle &handle) {
	return Timestamp::FromEpochMicroSeconds(int64_t(AsNvme(handle).node->mtime_ns.load() / 1000));
}

FileType NvmeFileSystem::GetFileType(FileHandle &handle) {
	return FileType::FILE_TYPE_REGULAR;
}

void NvmeFileSystem::Truncate(FileHandle &handle, int64_t new_size) {
	auto &h = AsNvme(handle);
	if (new_size < 0) {
		throw IOException("Could not truncate file \"%s\": negative size", handle.path);
	}
	NVMEFS_TRY
	h.volume->Truncate(*h.node, uint64_t(new_size));
	NVMEFS_CATCH
	if (h.position > uint64_t(new_size)) {
		h.position = uint64_t(new_size);
	}
}

void NvmeFileSystem::FileSync(FileHandle &handle) {
	auto &h = AsNvme(handle);
	NVMEFS_TRY
	h.volume->Sync(*h.node);
	NVMEFS_CATCH
}

bool NvmeFileSystem::DirectoryExists(const string &directory, optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(directory, opener, name);
	return volume->DirExists(name);
}

void NvmeFileSystem::CreateDirectory(const string &directory, optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(directory, opener, name);
	NVMEFS_TRY
	volume->MakeDir(name);
	NVMEFS_CATCH
}

void NvmeFileSystem::RemoveDirectory(const string &directory, optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(directory, opener, name);
	NVMEFS_TRY
	volume->RemoveDir(name);
	NVMEFS_CATCH
}

bool NvmeFileSystem::ListFiles(const string &directory, const std::function<void(const string &, bool)> &callback,
                               FileOpener *opener) {
	string name;
	auto volume = Resolve(directory, opener, name);
	if (!volume->DirExists(name)) {
		return false;
	}
	for (auto &child : volume->List(name)) {
		callback(child.first, child.second);
	}
	return true;
}

void NvmeFileSystem::MoveFile(const string &source, const string &target, optional_ptr<FileOpener> opener) {
	string from, to;
	auto volume = Resolve(source, opener, from);
	auto target_volume = Resolve(target, opener, to);
	if (volume != target_volume) {
		throw IOException("Cannot move \"%s\" to \"%s\": they are on different nvmefs devices", source, target);
	}
	NVMEFS_TRY
	volume->Move(from, to);
	NVMEFS_CATCH
}

bool NvmeFileSystem::FileExists(const string &filename, optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(filename, opener, name);
	return volume->FileExists(name);
}

bool NvmeFileSystem::IsPipe(const string &filename, optional_ptr<FileOpener> opener) {
	return false;
}

void NvmeFileSystem::RemoveFile(const string &filename, optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(filename, opener, name);
	NVMEFS_TRY
	volume->Remove(name);
	NVMEFS_CATCH
}

bool NvmeFileSystem::TryRemoveFile(const string &filename, optional_ptr<FileOpener> opener) {
	string name;
	auto volume = Resolve(filename, opener, name);
	if (!volume->FileExists(name)) {
		return false;
	}
	NVMEFS_TRY
	volume->Remove(name);
	NVMEFS_CATCH
	return true;
}

vector<OpenFileInfo> NvmeFileSystem::Glob(const string &path, FileOpener *opener) {
	string pattern;
	auto volume = Resolve(path, opener, pattern);
	vector<OpenFileInfo> result;
	if (!HasGlob(pattern)) {
		if (volume->FileExists(pattern)) {
			result.emplace_back(string(NVMEFS_SCHEME) + pattern);
		}
		return result;
	}
	for (auto &name : volume->AllFiles()) {
		if (fnmatch(pattern.c_str(), name.c_str(), FNM_PATHNAME) == 0) {
			result.emplace_back(string(NVMEFS_SCHEME) + name);
		}
	}
	return result;
}

void NvmeFileSystem::Seek(FileHandle &handle, idx_t location) {
	AsNvme(handle).position = location;
}

void NvmeFileSystem::Reset(FileHandle &handle) {
	AsNvme(handle).position = 0;
}

idx_t NvmeFileSystem::SeekPosition(FileHandle &handle) {
	return AsNvme(handle).position;
}

bool NvmeFileSystem::CanSeek() {
	return true;
}

bool NvmeFileSystem::OnDiskFile(FileHandle &handle) {
	return true;
}

FileWriteMode NvmeFileSystem::GetWriteMode(FileHandle &handle) {
	return FileWriteMode::POSITIONAL;
}

string NvmeFileSystem::PathSeparator(const string &path) {
	return "/";
}

bool NvmeFileSystem::IsPathAbsolute(const string &path) {
	return CanHandleFile(path);
}

} // namespace duckdb
