// `mmt compile`: checks and compiles a model; writes the net in any format mmt knows.
#include <sstream>

#include "gspn/invariants.hpp"
#include "gspn/writers.hpp"
#include "io/formats.hpp"
#include "tools/commands/command.hpp"

namespace mmt::tools {

int compileCommand(std::vector<std::string> args) {
  return runCommand(
      "compile", std::move(args),
      "Checks a model and compiles it to a GSPN: a system description (.hdl), or a raw net "
      "(.gspn, .pnml, GreatSPN .net or .PNPRO). Reports every error with file:line:column. "
      "Optionally writes the net as text (--net), PNML (--pnml), a GreatSPN project "
      "(--pnpro), GreatSPN files (--greatspn) or "
      "Graphviz DOT (--dot, one cluster per element; draw it with 'dot -Tsvg'). This also "
      "converts between the net formats.",
      [](TCLAP::CmdLine& cmd, std::vector<std::string>& argv) -> int {
        TCLAP::ValueArg<std::string> dot("", "dot", "write the net as Graphviz DOT to OUT", false,
                                         "", "OUT", cmd);
        TCLAP::ValueArg<std::string> greatSpn(
            "", "greatspn", "write the net as GreatSPN files BASE.net and BASE.def", false, "",
            "BASE", cmd);
        TCLAP::ValueArg<std::string> pnml(
            "", "pnml", "write the net as PNML to OUT ('-' for stdout)", false, "", "OUT", cmd);
        TCLAP::ValueArg<std::string> pnpro(
            "", "pnpro",
            "write the net as a GreatSPN editor project (PNPRO) to OUT ('-' for stdout)", false, "",
            "OUT", cmd);
        TCLAP::ValueArg<std::string> net("", "net",
                                         "write the net as .gspn text to OUT ('-' for stdout)",
                                         false, "", "OUT", cmd);
        TCLAP::SwitchArg trace("", "trace-passes", "print a summary after each compiler pass", cmd);
        TCLAP::SwitchArg invariants(
            "", "invariants",
            "print the net's P-invariants (minimal P-semiflows, Farkas' algorithm) with their "
            "token sums, and which places they or inhibitor arcs prove bounded",
            cmd);
        ModelArguments input(cmd);
        cmd.parse(argv);

        Model model;
        if (int rc = input.load(trace.getValue(), model); rc != kSuccess) return rc;
        const gspn::Net& n = model.net();
        try {
          // All or nothing: a net a format cannot hold, or an output that cannot be
          // written, leaves no file behind (OutputFiles).
          OutputFiles outputs(input.paths());
          // One text format, written to `path` when that option was given.
          const auto render = [&](const std::string& path,
                                  void (*writer)(const gspn::Net&, std::ostream&)) {
            if (path.empty()) return;
            std::ostringstream text;
            writer(n, text);
            outputs.write(path, text.str());
          };
          render(net.getValue(), gspn::writeText);
          render(pnml.getValue(), io::writePnml);
          render(pnpro.getValue(), io::writePnpro);
          if (!greatSpn.getValue().empty()) {
            std::ostringstream netFile, defFile;
            io::writeGreatSpn(n, netFile, defFile);
            outputs.write(greatSpn.getValue() + ".net", netFile.str());
            outputs.write(greatSpn.getValue() + ".def", defFile.str());
          }
          if (!dot.getValue().empty()) gspn::writeDot(n, outputs.stage(dot.getValue()));
          outputs.commit();
        } catch (const std::exception& e) {
          std::cerr << "mmt: error: " << e.what() << '\n';
          return kInputError;
        }
        if (invariants.getValue()) {
          const gspn::PSemiflows flows = gspn::computePSemiflows(n);
          if (!flows.complete)
            std::cout << "P-invariants: too many to enumerate (Farkas' algorithm gave up)\n";
          else
            std::cout << "P-invariants (" << flows.flows.size() << "):\n";
          for (const auto& f : flows.flows) std::cout << "  " << gspn::formatSemiflow(n, f) << '\n';
          const gspn::Boundedness bounds = gspn::analyzeBoundedness(n, flows);
          if (bounds.allBounded())
            std::cout << "bounded: every place is covered by a P-invariant or bounded by an "
                         "inhibitor arc\n";
          else
            std::cout << "not proven bounded: " << bounds.unproven(n) << '\n';
        }
        std::cerr << input.file.getValue() << ": ok: " << n.placeCount() << " places, "
                  << n.transitionCount() << " transitions\n";
        return kSuccess;
      });
}

}  // namespace mmt::tools
