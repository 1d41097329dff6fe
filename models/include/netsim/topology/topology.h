// The network as a Boost.Graph graph: nodes are vertices, links are edges.
//
// Forwarding tables come from breadth-first shortest paths (fewest hops) to
// every host; ties go to the edge added first, so tables are deterministic.
// Hubs are traversed like any node (they flood, so need no table).
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "netsim/net/node.h"

namespace netsim {

class Topology {
 public:
  struct VertexInfo {
    std::string name;
    NodeKind kind = NodeKind::host;
    std::string label;  // extra text for Graphviz (address, buffer, ...)
  };
  struct EdgeInfo {
    std::string name;
    NodeId node_a = kNoNode;  // the two ends and each end's port number
    NodeId node_b = kNoNode;
    int port_at_a = -1;
    int port_at_b = -1;
    int port_at(NodeId v) const { return v == node_a ? port_at_a : port_at_b; }
    std::string label;  // rate/delay for Graphviz
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo, EdgeInfo>;

  // Vertex ids equal NodeIds: add nodes in NodeId order.
  NodeId add_node(const VertexInfo& info);
  // `info` must name a and b as node_a and node_b.
  void add_link(const EdgeInfo& info);

  std::size_t node_count() const { return boost::num_vertices(graph_); }
  const Graph& graph() const { return graph_; }

  // forwarding[v][d] = port of v toward node d (-1 if d is not a host, is v, or unreachable).
  std::vector<std::vector<int>> forwarding_tables() const;
  // Connected-component id per node.
  std::vector<int> components() const;
  bool connected(NodeId a, NodeId b) const;
  // Hop-count path a -> b (node ids, inclusive), empty if none.
  std::vector<NodeId> path(NodeId a, NodeId b) const;

  // Graphviz via boost::write_graphviz: hosts as boxes, switches as diamonds, hubs as circles.
  void write_dot(std::ostream& out, const std::string& graph_name) const;

 private:
  // For every vertex, its port on the first hop of a shortest path to `root`.
  std::vector<int> ports_toward(NodeId root) const;
  Graph graph_;
};

}  // namespace netsim
