#include "netsim/topology/topology.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/graphviz.hpp>

#include <ostream>

namespace netsim {
namespace {

// Records, for every vertex reached, the edge it was discovered through.
class TreeEdgeRecorder : public boost::default_bfs_visitor {
 public:
  explicit TreeEdgeRecorder(std::vector<Topology::Graph::edge_descriptor>* pred, std::vector<bool>* has)
      : pred_(pred), has_(has) {}
  void tree_edge(Topology::Graph::edge_descriptor e, const Topology::Graph& g) const {
    auto v = boost::target(e, g);
    (*pred_)[v] = e;
    (*has_)[v] = true;
  }

 private:
  std::vector<Topology::Graph::edge_descriptor>* pred_;
  std::vector<bool>* has_;
};

// A DOT string literal. Backslashes are kept: labels use DOT's own \n escape.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

NodeId Topology::add_node(const VertexInfo& info) { return static_cast<NodeId>(boost::add_vertex(info, graph_)); }

void Topology::add_link(const EdgeInfo& info) { boost::add_edge(info.node_a, info.node_b, info, graph_); }

std::vector<int> Topology::ports_toward(NodeId root) const {
  const std::size_t n = node_count();
  std::vector<Graph::edge_descriptor> pred(n);
  std::vector<bool> has(n, false);
  boost::breadth_first_search(graph_, boost::vertex(root, graph_), boost::visitor(TreeEdgeRecorder(&pred, &has)));
  std::vector<int> ports(n, -1);
  for (std::size_t v = 0; v < n; ++v) {
    if (!has[v]) continue;
    // v was discovered through this edge from its parent, one hop closer to root.
    ports[v] = graph_[pred[v]].port_at(static_cast<NodeId>(v));
  }
  return ports;
}

std::vector<std::vector<int>> Topology::forwarding_tables() const {
  const std::size_t n = node_count();
  std::vector<std::vector<int>> tables(n, std::vector<int>(n, -1));
  for (std::size_t d = 0; d < n; ++d) {
    if (graph_[d].kind != NodeKind::host) continue;
    std::vector<int> ports = ports_toward(static_cast<NodeId>(d));
    for (std::size_t v = 0; v < n; ++v) tables[v][d] = ports[v];
  }
  return tables;
}

std::vector<int> Topology::components() const {
  std::vector<int> comp(node_count(), 0);
  if (!comp.empty()) boost::connected_components(graph_, comp.data());
  return comp;
}

bool Topology::connected(NodeId a, NodeId b) const {
  auto comp = components();
  return comp[a] == comp[b];
}

std::vector<NodeId> Topology::path(NodeId a, NodeId b) const {
  if (!connected(a, b)) return {};
  const std::size_t n = node_count();
  std::vector<Graph::edge_descriptor> pred(n);
  std::vector<bool> has(n, false);
  boost::breadth_first_search(graph_, boost::vertex(b, graph_), boost::visitor(TreeEdgeRecorder(&pred, &has)));
  std::vector<NodeId> out{a};
  NodeId v = a;
  while (v != b) {
    const auto e = pred[v];
    v = static_cast<NodeId>(boost::source(e, graph_) == v ? boost::target(e, graph_) : boost::source(e, graph_));
    out.push_back(v);
  }
  return out;
}

void Topology::write_dot(std::ostream& out, const std::string& graph_name) const {
  auto vertex_writer = [this](std::ostream& os, Graph::vertex_descriptor v) {
    const VertexInfo& info = graph_[v];
    const char* shape = info.kind == NodeKind::host      ? "box"
                        : info.kind == NodeKind::switch_ ? "diamond"
                        : info.kind == NodeKind::vswitch ? "hexagon"
                                                         : "circle";
    std::string label = info.name + (info.label.empty() ? "" : "\\n" + info.label);
    os << "[label=" << quote(label) << ", shape=" << shape << "]";
  };
  auto edge_writer = [this](std::ostream& os, Graph::edge_descriptor e) {
    const EdgeInfo& info = graph_[e];
    std::string label = info.name + (info.label.empty() ? "" : "\\n" + info.label);
    os << "[label=" << quote(label) << "]";
  };
  auto graph_writer = [&graph_name](std::ostream& os) { os << "label=" << quote(graph_name) << ";\n"; };
  // write_graphviz quotes the node ids itself.
  auto names = boost::make_transform_value_property_map([this](Graph::vertex_descriptor v) { return graph_[v].name; },
                                                        boost::get(boost::vertex_index, graph_));
  boost::write_graphviz(out, graph_, vertex_writer, edge_writer, graph_writer, names);
}

}  // namespace netsim
