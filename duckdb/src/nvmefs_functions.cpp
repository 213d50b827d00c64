// SPDX-License-Identifier: BSD-3-Clause
//
// SQL functions:
//   nvmefs_format(path := 'nvmefs://', force := false, wal_percent := 10, temp_percent := 40)
//       initialises the device behind `path` and returns one row describing the new volume
//   nvmefs_info(path := 'nvmefs://')
//       one row for the device, one per region, one per file or directory
#include "nvmefs_functions.hpp"

#include "duckdb/function/table_function.hpp"
#include "duckdb/main/client_data.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "nvmefs_fs.hpp"

namespace duckdb {

namespace {

struct NvmeFunctionInfo : public TableFunctionInfo {
	explicit NvmeFunctionInfo(NvmeFileSystem &fs_p) : fs(fs_p) {
	}
	NvmeFileSystem &fs;
};

struct RowsBindData : public TableFunctionData {
	NvmeFileSystem *fs = nullptr;
	string path = NVMEFS_SCHEME;
	nvmefs::FormatOptions format;
};

struct RowsState : public GlobalTableFunctionState {
	vector<vector<Value>> rows;
	idx_t offset = 0;
	bool produced = false;
};

Value OptionalInt(int v) {
	return v < 0 ? Value(LogicalType::INTEGER) : Value::INTEGER(v);
}

template <class T>
string PlacementList(const std::vector<T> &pids) {
	string out = "[";
	for (size_t i = 0; i < pids.size(); i++) {
		out += (i ? "," : "") + std::to_string(pids[i]);
	}
	return out + "]";
}

void ReadNamed(TableFunctionBindInput &input, RowsBindData &data) {
	for (auto &kv : input.named_parameters) {
		auto key = StringUtil::Lower(kv.first.GetIdentifierName());
		auto &value = kv.second;
		if (value.IsNull()) {
			continue;
		}
		if (key == "path") {
			data.path = value.ToString();
		} else if (key == "force") {
			data.format.force = value.GetValue<bool>();
		} else if (key == "wal_percent") {
			data.format.wal_percent = uint32_t(value.GetValue<int32_t>());
		} else if (key == "temp_percent") {
			data.format.temp_percent = uint32_t(value.GetValue<int32_t>());
		}
	}
	if (!NvmeFileSystem::IsNvmePath(data.path)) {
		throw InvalidInputException("nvmefs: path '%s' is not an nvmefs:// path", data.path);
	}
}

void Emit(RowsState &state, DataChunk &output) {
	idx_t count = 0;
	while (state.offset < state.rows.size() && count < STANDARD_VECTOR_SIZE) {
		auto &row = state.rows[state.offset++];
		for (idx_t c = 0; c < row.size(); c++) {
			output.data[c].Append(row[c]);
		}
		count++;
	}
	output.SetCardinalityUnsafe(count);
}

// ---- nvmefs_format --------------------------------------------------------------------------

unique_ptr<FunctionData> FormatBind(ClientContext &context, TableFunctionBindInput &input,
                                    vector<LogicalType> &return_types, vector<Identifier> &names) {
	auto data = make_uniq<RowsBindData>();
	data->fs = &input.info->Cast<NvmeFunctionInfo>().fs;
	ReadNamed(input, *data);
	names = {"device", "uuid", "lba_nbytes", "capacity_bytes", "db_bytes", "wal_bytes", "temp_bytes", "fdp",
	         "placement_ids"};
	return_types = {LogicalType::VARCHAR, LogicalType::VARCHAR, LogicalType::BIGINT,
	                LogicalType::BIGINT,  LogicalType::BIGINT,  LogicalType::BIGINT,
	                LogicalType::BIGINT,  LogicalType::BOOLEAN, LogicalType::VARCHAR};
	return std::move(data);
}

unique_ptr<GlobalTableFunctionState> RowsInit(ClientContext &context, TableFunctionInitInput &input) {
	return make_uniq<RowsState>();
}

void FormatFunction(ClientContext &context, TableFunctionInput &input, DataChunk &output) {
	auto &data = input.bind_data->Cast<RowsBindData>();
	auto &state = input.global_state->Cast<RowsState>();
	if (!state.produced) {
		state.produced = true;
		string name;
		auto volume = data.fs->Resolve(data.path, context.client_data->file_opener.get(), name, false);
		nvmefs::VolumeInfo info;
		try {
			volume->Format(data.format);
			info = volume->Info();
		} catch (const nvmefs::Error &e) {
			throw IOException(string(e.what()));
		}
		vector<Value> row = {Value(info.uri), Value(info.uuid), Value::BIGINT(info.lba_nbytes),
		                     Value::BIGINT(int64_t(info.capacity))};
		for (auto &r : info.regions) {
			row.push_back(Value::BIGINT(int64_t(r.nbytes)));
		}
		row.push_back(Value::BOOLEAN(info.fdp));
		row.push_back(Value(PlacementList(info.placement_ids)));
		state.rows.push_back(std::move(row));
	}
	Emit(state, output);
}

// ---- nvmefs_info ----------------------------------------------------------------------------

unique_ptr<FunctionData> InfoBind(ClientContext &context, TableFunctionBindInput &input,
                                  vector<LogicalType> &return_types, vector<Identifier> &names) {
	auto data = make_uniq<RowsBindData>();
	data->fs = &input.info->Cast<NvmeFunctionInfo>().fs;
	ReadNamed(input, *data);
	names = {"kind", "name", "region", "size_bytes", "allocated_bytes", "free_bytes", "extents", "placement_handle",
	         "detail"};
	return_types = {LogicalType::VARCHAR, LogicalType::VARCHAR, LogicalType::VARCHAR,
	                LogicalType::BIGINT,  LogicalType::BIGINT,  LogicalType::BIGINT,
	                LogicalType::BIGINT,  LogicalType::INTEGER, LogicalType::VARCHAR};
	return std::move(data);
}

void InfoFunction(ClientContext &context, TableFunctionInput &input, DataChunk &output) {
	auto &data = input.bind_data->Cast<RowsBindData>();
	auto &state = input.global_state->Cast<RowsState>();
	if (!state.produced) {
		state.produced = true;
		string name;
		auto volume = data.fs->Resolve(data.path, context.client_data->file_opener.get(), name, false);
		auto info = volume->Info();
		const Value null_big(LogicalType::BIGINT);
		const Value null_str(LogicalType::VARCHAR);
		string detail = "state=" + info.state + " " + info.mechanisms + " lba_nbytes=" +
		                std::to_string(info.lba_nbytes) + " max_transfer=" + std::to_string(info.max_transfer) +
		                " queues=" + std::to_string(info.queues) +
		                " fdp=" + (info.fdp ? "on" : "off") + " placement_ids=" + PlacementList(info.placement_ids);
		if (info.fdp) {
			detail += " ruamw=" + PlacementList(info.placement_available);
		}
		if (!info.uuid.empty()) {
			detail += " uuid=" + info.uuid + " generation=" + std::to_string(info.seq) +
			          " commits=" + std::to_string(info.commits);
		}
		if (!info.detail.empty()) {
			detail += " reason=\"" + info.detail + "\"";
		}
		state.rows.push_back(vector<Value> {Value("device"), Value(info.uri), null_str, Value::BIGINT(int64_t(info.capacity)),
		                      null_big, null_big, null_big, Value(LogicalType::INTEGER), Value(detail)});
		for (auto &r : info.regions) {
			string rd = "start_lba=" + std::to_string(r.start_lba) +
			            " largest_free_bytes=" + std::to_string(r.largest_free_nbytes) +
			            " read_bytes=" + std::to_string(r.read_bytes) + " write_bytes=" + std::to_string(r.write_bytes) +
			            " rmw_reads=" + std::to_string(r.rmw_reads) + " syncs=" + std::to_string(r.syncs);
			state.rows.push_back(vector<Value> {Value("region"), Value(r.name), Value(r.name), Value::BIGINT(int64_t(r.nbytes)),
			                      Value::BIGINT(int64_t(r.nbytes - r.free_nbytes)),
			                      Value::BIGINT(int64_t(r.free_nbytes)), Value::BIGINT(int64_t(r.free_extents)),
			                      OptionalInt(r.placement), Value(rd)});
		}
		for (auto &f : info.files) {
			bool dir = f.kind == "directory";
			string fd = dir ? "" : string(f.persistent ? "persistent" : "temporary") +
			                           " open_handles=" + std::to_string(f.open_handles);
			state.rows.push_back(vector<Value> {Value(f.kind), Value(string(NVMEFS_SCHEME) + f.name),
			                      dir ? null_str : Value(f.region), dir ? null_big : Value::BIGINT(int64_t(f.size)),
			                      dir ? null_big : Value::BIGINT(int64_t(f.allocated)), null_big,
			                      dir ? null_big : Value::BIGINT(int64_t(f.nextents)),
			                      dir ? Value(LogicalType::INTEGER) : OptionalInt(f.placement), Value(fd)});
		}
	}
	Emit(state, output);
}

} // namespace

void RegisterNvmeFunctions(ExtensionLoader &loader, NvmeFileSystem &fs) {
	auto info = make_shared_ptr<NvmeFunctionInfo>(fs);

	TableFunction format("nvmefs_format",
	                     FunctionSignature()
	                         .AddKeywordOnly("path", LogicalType::VARCHAR, Value(NVMEFS_SCHEME))
	                         .AddKeywordOnly("force", LogicalType::BOOLEAN, Value::BOOLEAN(false))
	                         .AddKeywordOnly("wal_percent", LogicalType::INTEGER, Value::INTEGER(10))
	                         .AddKeywordOnly("temp_percent", LogicalType::INTEGER, Value::INTEGER(40)),
	                     FormatFunction, FormatBind, RowsInit);
	format.function_info = info;
	loader.RegisterFunction(format);

	TableFunction info_fun("nvmefs_info",
	                       FunctionSignature().AddKeywordOnly("path", LogicalType::VARCHAR, Value(NVMEFS_SCHEME)),
	                       InfoFunction, InfoBind, RowsInit);
	info_fun.function_info = info;
	loader.RegisterFunction(info_fun);
}

} // namespace duckdb
