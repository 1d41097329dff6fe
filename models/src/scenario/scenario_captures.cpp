#include "netsim/scenario/scenario_captures.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "netsim/host/host.h"
#include "netsim/net/link.h"
#include "scenario_schema.h"

namespace netsim {

// The validator reads points by their index in kHostCapturePointNames, so
// the same table names them here.
static_assert(scenario_internal::kHostCapturePointNames.size() == static_cast<std::size_t>(kHostCapturePoints));

const char* host_capture_point_name(HostCapturePoint p) {
  return scenario_internal::kHostCapturePointNames[static_cast<std::size_t>(p)].data();  // literals: NUL-terminated
}

CaptureSpec default_capture(const ScenarioSpec& spec) {
  CaptureSpec c;
  for (const HostSpec& h : spec.hosts) {
    HostCaptureSpec hc;
    hc.host = h.name;
    hc.loc = h.loc;
    for (int i = 0; i < kHostCapturePoints; ++i) hc.points.push_back(static_cast<HostCapturePoint>(i));
    c.hosts.push_back(std::move(hc));
  }
  return c;
}

ScenarioCaptures::ScenarioCaptures(BuiltScenario& b, const CaptureSpec& spec, const std::string& dir)
    : b_(b), dir_(dir), snaplen_(spec.snaplen) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create capture directory " + dir + ": " + ec.message());
  for (const Node* n : b.nodes) {
    book_.add(n->id(), n->kind() == NodeKind::host ? static_cast<const Host*>(n)->address() : std::string());
  }

  for (const HostCaptureSpec& hc : spec.hosts) {
    auto* host = static_cast<Host*>(b.node(hc.host));
    for (HostCapturePoint point : hc.points) {
      PcapCapture& c = open(hc.host + "." + host_capture_point_name(point), point == HostCapturePoint::wire_in);
      switch (point) {
        case HostCapturePoint::wire_in:
        case HostCapturePoint::wire_out:
          // Every link of the host, in link order: the directions into it
          // (timestamped on arrival) or out of it.
          for (Link* l : b.links) {
            const bool a = &l->end_a() == host;
            if (!a && &l->end_b() != host) continue;
            const bool into = point == HostCapturePoint::wire_in;
            (a == into ? l->b_to_a() : l->a_to_b()).add_observer(&c);
          }
          break;
        case HostCapturePoint::ingress: {
          // A receive NIC runs the ingress filters, so the point before them is in the NIC.
          bool on_nic = false;
          for (const BuiltNic& n : b.nics) {
            if (n.host->name != hc.host) continue;
            n.nic->add_tap(&c);
            on_nic = true;
          }
          if (!on_nic) host->add_tap(TapPoint::ingress, &c);
          break;
        }
        case HostCapturePoint::accepted:
          host->add_tap(TapPoint::accepted, &c);
          break;
        case HostCapturePoint::egress:
          host->add_tap(TapPoint::egress, &c);
          break;
      }
    }
  }
  for (const LinkCaptureSpec& lc : spec.links) {
    for (Link* l : b.links) {
      if (l->name() != lc.link) continue;
      PcapCapture& c = open(lc.link + "." + lc.from, false);
      (l->end_a().name() == lc.from ? l->a_to_b() : l->b_to_a()).add_observer(&c);
    }
  }
}

PcapCapture& ScenarioCaptures::open(const std::string& point, bool at_far_end) {
  const std::string path = (std::filesystem::path(dir_) / (point + ".pcap")).string();
  captures_.push_back(std::make_unique<PcapCapture>(*b_.sim, point, path, snaplen_, book_, at_far_end));
  return *captures_.back();
}

void ScenarioCaptures::finish(results::RunResult& out) {
  std::string first_error;
  for (const auto& c : captures_) {
    try {
      c->file().close();
    } catch (const std::runtime_error& e) {
      if (first_error.empty()) first_error = e.what();
    }
    auto* s = out.add_captures();
    s->set_point(c->point());
    s->set_file(std::filesystem::path(c->file().path()).filename().string());
    s->set_frames(c->file().frames());
    s->set_captured_bytes(c->file().bytes_written());
    s->set_snaplen(c->file().snaplen());
  }
  if (!first_error.empty()) throw std::runtime_error(first_error);
}

}  // namespace netsim
