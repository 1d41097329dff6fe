# Result schema. Included from the top-level CMakeLists: protoc rules must live
# in the directory that defines the target. Generated code lands in
# <build>/generated-proto/netsim/results/ and is installed beside the other headers.
set(proto_out ${PROJECT_BINARY_DIR}/generated-proto)
file(MAKE_DIRECTORY ${proto_out}/netsim/results)
protobuf_generate(TARGET netsim LANGUAGE cpp APPEND_PATH
                  PROTOS ${PROJECT_SOURCE_DIR}/libsim/proto/netsim/results/run_result.proto
                         ${PROJECT_SOURCE_DIR}/libsim/proto/netsim/results/sweep_record.proto
                  PROTOC_OUT_DIR ${proto_out}/netsim/results
                  OUT_VAR proto_generated)
set_source_files_properties(${proto_generated} PROPERTIES COMPILE_OPTIONS "-w")
list(FILTER proto_generated INCLUDE REGEX "\\.h$")
target_sources(netsim PUBLIC FILE_SET proto_headers TYPE HEADERS BASE_DIRS ${proto_out} FILES ${proto_generated})
