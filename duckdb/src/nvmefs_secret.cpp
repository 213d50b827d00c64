// SPDX-License-Identifier: BSD-3-Clause
//
// The "nvmefs" secret type: which device backs nvmefs:// paths and how it is opened.
//
//   CREATE [PERSISTENT] SECRET name (TYPE nvmefs, DEVICE '1GB' [, BACKEND 'ramdisk']
//       [, ASYNC 'thrpool'] [, SYNC '...'] [, ADMIN '...'] [, NSID 1] [, QUEUE_DEPTH 64]
//       [, DIRECT true] [, ZERO_COPY true] [, SHM_ID 1] [, SCOPE 'nvmefs://prefix'])
//
// Without SCOPE a secret applies to every nvmefs:// path; scoped secrets put different path
// prefixes on different devices.
#include "nvmefs_secret.hpp"

#include <cerrno>
#include <cstring>
#include <libxnvme.h>

#include "duckdb/catalog/catalog_transaction.hpp"
#include "duckdb/common/file_opener.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb/main/secret/secret.hpp"
#include "duckdb/main/secret/secret_manager.hpp"
#include "nvmefs_fs.hpp"

namespace duckdb {

static const char *const KEY_DEVICE = "device";
static const char *const KEY_BACKEND = "backend";
static const char *const KEY_ASYNC = "async";
static const char *const KEY_SYNC = "sync";
static const char *const KEY_ADMIN = "admin";
static const char *const KEY_NSID = "nsid";
static const char *const KEY_QUEUE_DEPTH = "queue_depth";
static const char *const KEY_DIRECT = "direct";
static const char *const KEY_ZERO_COPY = "zero_copy";
static const char *const KEY_SHM_ID = "shm_id";

static constexpr int64_t QUEUE_DEPTH_MAX = 4096;

static vector<string> EnabledBackends() {
	vector<string> names;
	struct xnvme_be_attr_list *list = nullptr;
	if (xnvme_be_attr_list_bundled(&list) == 0 && list) {
		for (int i = 0; i < int(list->count); i++) {
			if (list->item[i].enabled && list->item[i].name) {
				names.emplace_back(list->item[i].name);
			}
		}
		xnvme_buf_virt_free(list);
	}
	return names;
}

static bool IsMechanismName(const string &name) {
	if (name.empty() || name.size() > 32) {
		return false;
	}
	for (char c : name) {
		if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) {
			return false;
		}
	}
	return true;
}

// "<N>GB[?options]": a URI of the ramdisk backend (any other URI is a path)
static bool IsRamdiskUri(const string &uri) {
	auto base = uri.substr(0, uri.find('?'));
	if (base.size() < 3 || base.compare(base.size() - 2, 2, "GB") != 0) {
		return false;
	}
	for (size_t i = 0; i + 2 < base.size(); i++) {
		if (!isdigit(static_cast<unsigned char>(base[i]))) {
			return false;
		}
	}
	return true;
}

// A ramdisk costs nothing to open and has no state outside the process: open it once with the
// secret's settings, so that what would fail at first use (a mechanism the ramdisk does not
// have, such as ASYNC 'io_uring', or a bad ramdisk option) is refused here, with the reason.
static void CheckRamdiskSettings(const KeyValueSecret &secret) {
	auto get = [&](const char *key) {
		Value v;
		return secret.TryGetValue(Identifier(key), v) && !v.IsNull() ? v.ToString() : string();
	};
	auto uri = get(KEY_DEVICE), backend = get(KEY_BACKEND);
	if (!IsRamdiskUri(uri) || (!backend.empty() && backend != "ramdisk")) {
		return;
	}
	auto async = get(KEY_ASYNC), sync = get(KEY_SYNC), admin = get(KEY_ADMIN);
	struct xnvme_opts opts = xnvme_opts_default();
	opts.be = "ramdisk";
	opts.async = async.empty() ? nullptr : async.c_str();
	opts.sync = sync.empty() ? nullptr : sync.c_str();
	opts.admin = admin.empty() ? nullptr : admin.c_str();
	errno = 0;
	auto dev = xnvme_dev_open(uri.c_str(), &opts);
	if (!dev) {
		int err = errno ? errno : ENODEV;
		string given;
		for (auto &kv : {std::make_pair("ASYNC", async), std::make_pair("SYNC", sync),
		                 std::make_pair("ADMIN", admin)}) {
			if (!kv.second.empty()) {
				given += StringUtil::Format(" %s '%s'", kv.first, kv.second);
			}
		}
		throw InvalidInputException("nvmefs secret: DEVICE '%s' is a ramdisk that cannot be opened%s%s: %s "
		                            "(the library's reason is on stderr; the ramdisk has the mechanisms "
		                            "ASYNC thrpool/emu/nil, SYNC and ADMIN ramdisk)",
		                            uri, given.empty() ? "" : " with", given, strerror(err));
	}
	xnvme_dev_close(dev);
}

static unique_ptr<BaseSecret> CreateNvmeSecret(ClientContext &context, CreateSecretInput &input) {
	auto scope = input.scope;
	if (scope.empty()) {
		scope.emplace_back(NVMEFS_SCHEME);
	}
	for (auto &prefix : scope) {
		if (!StringUtil::StartsWith(StringUtil::Lower(prefix), NVMEFS_SCHEME)) {
			throw InvalidInputException("nvmefs secret: SCOPE '%s' must start with '%s'", prefix, NVMEFS_SCHEME);
		}
	}
	auto secret = make_uniq<KeyValueSecret>(scope, input.type, input.provider, input.name);
	bool have_device = false;
	for (auto &option : input.options) {
		auto key = StringUtil::Lower(option.first);
		auto &value = option.second;
		if (value.IsNull()) {
			throw InvalidInputException("nvmefs secret: %s must not be NULL", key);
		}
		if (key == KEY_DEVICE) {
			if (value.ToString().empty()) {
				throw InvalidInputException("nvmefs secret: DEVICE must not be empty");
			}
			have_device = true;
		} else if (key == KEY_BACKEND) {
			auto backends = EnabledBackends();
			auto name = value.ToString();
			bool known = false;
			for (auto &b : backends) {
				known |= b == name;
			}
			if (!known) {
				throw InvalidInputException("nvmefs secret: BACKEND '%s' is not available in this libxnvme "
				                            "(available: %s)",
				                            name, StringUtil::Join(backends, ", "));
			}
		} else if (key == KEY_ASYNC || key == KEY_SYNC || key == KEY_ADMIN) {
			if (!IsMechanismName(value.ToString())) {
				throw InvalidInputException("nvmefs secret: %s '%s' is not a mechanism name", StringUtil::Upper(key),
				                            value.ToString());
			}
		} else if (key == KEY_NSID) {
			auto nsid = value.GetValue<int64_t>();
			if (nsid < 0 || nsid > int64_t(0xFFFFFFFE)) {
				throw InvalidInputException("nvmefs secret: NSID %lld is out of range", (long long)nsid);
			}
		} else if (key == KEY_SHM_ID) {
			auto id = value.GetValue<int64_t>();
			if (id < 1 || id > int64_t(0xFFFFFFFF)) {
				throw InvalidInputException("nvmefs secret: SHM_ID %lld is out of range (1..4294967295: the "
				                            "id of a running 'xnvme-driver serve')",
				                            (long long)id);
			}
		} else if (key == KEY_QUEUE_DEPTH) {
			auto qd = value.GetValue<int64_t>();
			if (qd < 1 || qd > QUEUE_DEPTH_MAX) {
				throw InvalidInputException("nvmefs secret: QUEUE_DEPTH %lld is out of range (1..%lld)", (long long)qd,
				                            (long long)QUEUE_DEPTH_MAX);
			}
		}
		secret->secret_map[Identifier(key)] = value;
	}
	if (!have_device) {
		throw InvalidInputException("nvmefs secret: DEVICE is required (a device URI: '1GB' for a ramdisk, a file "
		                            "or block device path, or an NVMe namespace such as '/dev/ng0n1')");
	}
	CheckRamdiskSettings(*secret);
	return std::move(secret);
}

void RegisterNvmeSecret(ExtensionLoader &loader) {
	SecretType type;
	type.name = NVMEFS_SECRET_TYPE;
	type.deserializer = KeyValueSecret::Deserialize<KeyValueSecret>;
	type.default_provider = "config";
	type.extension = "nvmefs";
	loader.RegisterSecretType(type);

	CreateSecretFunction fun;
	fun.secret_type = NVMEFS_SECRET_TYPE;
	fun.provider = "config";
	fun.function = CreateNvmeSecret;
	fun.named_parameters[KEY_DEVICE] = LogicalType::VARCHAR;
	fun.named_parameters[KEY_BACKEND] = LogicalType::VARCHAR;
	fun.named_parameters[KEY_ASYNC] = LogicalType::VARCHAR;
	fun.named_parameters[KEY_SYNC] = LogicalType::VARCHAR;
	fun.named_parameters[KEY_ADMIN] = LogicalType::VARCHAR;
	fun.named_parameters[KEY_NSID] = LogicalType::BIGINT;
	fun.named_parameters[KEY_QUEUE_DEPTH] = LogicalType::BIGINT;
	fun.named_parameters[KEY_DIRECT] = LogicalType::BOOLEAN;
	fun.named_parameters[KEY_ZERO_COPY] = LogicalType::BOOLEAN;
	fun.named_parameters[KEY_SHM_ID] = LogicalType::BIGINT;
	loader.RegisterFunction(fun);
}

static string StringOf(const KeyValueSecret &secret, const char *key) {
	Value v;
	if (secret.TryGetValue(Identifier(key), v) && !v.IsNull()) {
		return v.ToString();
	}
	return string();
}

nvmefs::DeviceConfig LookupDeviceConfig(DatabaseInstance &db, optional_ptr<FileOpener> opener, const string &path) {
	auto &manager = SecretManager::Get(db);
	auto context = FileOpener::TryGetClientContext(opener);
	auto transaction = context ? CatalogTransaction::GetSystemCatalogTransaction(*context)
	                           : CatalogTransaction::GetSystemTransaction(db);
	auto match = manager.LookupSecret(transaction, path, NVMEFS_SECRET_TYPE);
	if (!match.HasMatch()) {
		throw InvalidConfigurationException(
		    "nvmefs: no secret of type nvmefs covers \"%s\". Configure the device first, e.g. "
		    "CREATE SECRET (TYPE nvmefs, DEVICE '1GB') for a 1 GiB ramdisk, or DEVICE '/path/to/file-or-device'",
		    path);
	}
	auto &secret = match.GetSecret().Cast<KeyValueSecret>();
	nvmefs::DeviceConfig config;
	config.uri = StringOf(secret, KEY_DEVICE);
	if (config.uri.empty()) {
		throw InvalidConfigurationException("nvmefs: secret \"%s\" has no DEVICE", secret.GetName().GetIdentifierName());
	}
	config.backend = StringOf(secret, KEY_BACKEND);
	config.async = StringOf(secret, KEY_ASYNC);
	config.sync = StringOf(secret, KEY_SYNC);
	config.admin = StringOf(secret, KEY_ADMIN);
	Value v;
	if (secret.TryGetValue(Identifier(KEY_NSID), v) && !v.IsNull()) {
		config.nsid = uint32_t(v.GetValue<int64_t>());
	}
	if (secret.TryGetValue(Identifier(KEY_QUEUE_DEPTH), v) && !v.IsNull()) {
		config.queue_depth = uint32_t(v.GetValue<int64_t>());
	}
	if (secret.TryGetValue(Identifier(KEY_DIRECT), v) && !v.IsNull()) {
		config.direct = v.GetValue<bool>();
	}
	if (secret.TryGetValue(Identifier(KEY_ZERO_COPY), v) && !v.IsNull()) {
		config.zero_copy = v.GetValue<bool>();
	}
	if (secret.TryGetValue(Identifier(KEY_SHM_ID), v) && !v.IsNull()) {
		config.shm_id = uint32_t(v.GetValue<int64_t>());
	}
	return config;
}

} // namespace duckdb
