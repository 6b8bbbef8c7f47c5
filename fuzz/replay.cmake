# The fuzz targets built with the ordinary compiler and fuzz/replay_main.cpp instead of
# libFuzzer: ctest `fuzz_replay_<target>` replays fuzz/corpus/<target> (seeds, inputs the
# campaigns kept, and every fixed finding as regress-*) in the default test suite, in
# seconds. Fuzzing with sanitizers (new inputs) is the `long` test fuzz_smoke and
# scripts/fuzz.sh. Included from the top-level CMakeLists.txt when tests are built.
function(gcu_fuzz_replay name)
  cmake_parse_arguments(F "" "" "LIBS" ${ARGN})
  add_executable(fuzz_replay_${name} ${PROJECT_SOURCE_DIR}/fuzz/${name}_fuzz.cpp ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cpp)
  set_target_properties(fuzz_replay_${name} PROPERTIES UNITY_BUILD OFF RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz-replay)
  target_include_directories(fuzz_replay_${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(fuzz_replay_${name} PRIVATE ${F_LIBS})
  target_compile_definitions(fuzz_replay_${name} PRIVATE
    GCU_FUZZ_BASE_PROFILE="${PROJECT_SOURCE_DIR}/data/profiles/v100-resnet50.json")
  add_test(NAME fuzz_replay_${name} COMMAND fuzz_replay_${name} ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name})
  set_tests_properties(fuzz_replay_${name} PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()

gcu_fuzz_replay(profile LIBS gcu_model)
gcu_fuzz_replay(set LIBS gcu_model)
gcu_fuzz_replay(network_spec LIBS gcu_model)
gcu_fuzz_replay(hardware LIBS gcu_model)
gcu_fuzz_replay(quantity LIBS gcu_model)
gcu_fuzz_replay(parts LIBS gcu_model)
gcu_fuzz_replay(sweep LIBS gcu_simulate)
gcu_fuzz_replay(trace LIBS gcu_import)
gcu_fuzz_replay(scheme LIBS gcu_compressors)
gcu_fuzz_replay(compressor_state LIBS gcu_compressors)
gcu_fuzz_replay(calibrate_state LIBS gcu_calibrate_fit)
gcu_fuzz_replay(pilot_records LIBS gcu_calibrate_fit)
gcu_fuzz_replay(trainlog LIBS gcu_validate)
if(GCU_HAVE_TORCH)
  gcu_fuzz_replay(model_spec LIBS gcu_models)
  gcu_fuzz_replay(idx LIBS gcu_data)
  gcu_fuzz_replay(checkpoint LIBS gcu_trainer)
endif()
