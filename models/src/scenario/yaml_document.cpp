#include "yaml_document.h"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <vector>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::scenario_internal {
namespace {

SourceLoc mark_loc(const std::string& file, const YAML::Mark& mark) {
  if (mark.line < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, mark.line + 1, mark.column + 1};
}

// Records where each document starts and whether it holds anything.
class DocumentCounter : public YAML::EventHandler {
 public:
  struct Document {
    YAML::Mark start;
    YAML::Mark content;  // first node
    bool empty = true;
  };
  std::vector<Document> documents;

  void OnDocumentStart(const YAML::Mark& mark) override {
    documents.push_back(Document{mark, mark, true});
    depth_ = 0;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, false); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, true); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node(mark, true);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark, true);
    ++depth_;
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark, true);
    ++depth_;
  }
  void OnMapEnd() override { --depth_; }

 private:
  void node(const YAML::Mark& mark, bool content) {
    if (depth_ != 0 || documents.empty()) return;
    documents.back().content = mark;
    documents.back().empty = !content;
  }
  int depth_ = 0;
};

}  // namespace

YAML::Node parse_yaml_document(std::string_view text, const std::string& file) {
  const std::string owned(text);
  // First pass: events only, to see how many documents there are. yaml-cpp
  // 0.7 does not consume a token it cannot start a node with (a ',' at the
  // start of a document): it reports an empty document at the same place
  // forever, which makes YAML::LoadAll() allocate without bound and
  // YAML::Load() return an empty document. A document that starts where the
  // previous one did is that case, and is reported as a syntax error.
  DocumentCounter counter;
  try {
    std::istringstream in(owned);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(counter)) {
      const auto& docs = counter.documents;
      if (docs.size() >= 2 && docs[docs.size() - 1].start.pos == docs[docs.size() - 2].start.pos) {
        const YAML::Mark at = docs.back().start;
        const char c = at.pos >= 0 && static_cast<std::size_t>(at.pos) < owned.size() ? owned[at.pos] : '?';
        throw ScenarioError(mark_loc(file, at), "", std::string("invalid YAML: unexpected '") + c + "'");
      }
      // A second document would be ignored by YAML::Load(): refuse it rather than drop it.
      if (docs.size() >= 2 && !docs.back().empty) {
        throw ScenarioError(mark_loc(file, docs.back().content), "",
                            "a scenario file holds one YAML document, but another one starts here");
      }
    }
  } catch (const YAML::Exception& e) {  // ParserException and friends carry the position
    throw ScenarioError(mark_loc(file, e.mark), "", "invalid YAML: " + e.msg);
  }
  if (counter.documents.empty() || counter.documents.front().empty) {
    throw ScenarioError(SourceLoc{file, 1, 1}, "",
                        "the scenario is empty: expected a map with at least name, duration, hosts, links and traffic");
  }
  try {
    return YAML::Load(owned);
  } catch (const YAML::Exception& e) {  // not expected after the first pass, but never let one escape
    throw ScenarioError(mark_loc(file, e.mark), "", "invalid YAML: " + e.msg);
  }
}

}  // namespace netsim::scenario_internal
