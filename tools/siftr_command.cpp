#include "siftr_command.h"

#include <iostream>

#include "netsim/measure/measure_error.h"
#include "netsim/measure/siftr_log.h"
#include "netsim/measure/siftr_trace_comparison.h"
#include "netsim/sim/units.h"

namespace netsim::cli {

int command_siftr(const Options& o) {
  measure::SiftrSeriesOptions options;
  if (o.siftr_bin) {
    const auto bin = parse_duration(*o.siftr_bin);
    if (!bin || *bin.value <= 0 || *bin.value % kPicosPerMicro != 0) {
      std::cerr << "netsim: --bin needs a duration of whole microseconds above 0, such as 100ms, got '"
                << *o.siftr_bin << "'\n";
      return 2;
    }
    options.bin_width = *bin.value;
  }
  try {
    const std::vector<measure::SiftrSession> measured = measure::load_siftr_log(o.scenario_file);
    const std::vector<measure::SiftrSession> simulated = measure::load_siftr_log(o.siftr_simulated);
    const auto pick = [&o](const std::vector<measure::SiftrSession>& s, const std::string& file) {
      if (static_cast<std::size_t>(o.siftr_session) > s.size()) {
        throw measure::MeasureError(file, 0, "has " + std::to_string(s.size()) + " SIFTR session(s), not " +
                                                 std::to_string(o.siftr_session));
      }
      return &s[static_cast<std::size_t>(o.siftr_session - 1)];
    };
    const measure::SiftrSession* m = pick(measured, o.scenario_file);
    const measure::SiftrSession* s = pick(simulated, o.siftr_simulated);
    const measure::SiftrTraceComparison c = measure::compare_siftr_traces(
        m->records, m->enable, s->records, s->enable, options,
        o.siftr_pair_by_tuple ? measure::SiftrFlowPairing::by_tuple : measure::SiftrFlowPairing::by_order);
    std::cout << "measured: " << o.scenario_file << " (SIFTR " << m->enable.siftrver << ", session "
              << o.siftr_session << ")\nsimulated: " << o.siftr_simulated << " (SIFTR " << s->enable.siftrver
              << ")\n"
              << measure::render_siftr_trace_comparison(c);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace netsim::cli
