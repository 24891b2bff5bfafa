// `mmt compile`: checks and compiles a model; writes the net in any format mmt knows.
#include "api/invariants.hpp"
#include "api/writers.hpp"
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
          const auto render = [&](const std::string& path, api::NetFormat format) {
            if (!path.empty()) outputs.write(path, api::writeNet(model, format));
          };
          render(net.getValue(), api::NetFormat::Text);
          render(pnml.getValue(), api::NetFormat::Pnml);
          render(pnpro.getValue(), api::NetFormat::Pnpro);
          if (!greatSpn.getValue().empty()) {
            const api::GreatSpnFiles files = api::writeGreatSpn(model);
            outputs.write(greatSpn.getValue() + ".net", files.net);
            outputs.write(greatSpn.getValue() + ".def", files.def);
          }
          if (!dot.getValue().empty()) api::writeNetDot(model, outputs.stage(dot.getValue()));
          outputs.commit();
        } catch (const std::exception& e) {
          std::cerr << "mmt: error: " << e.what() << '\n';
          return kInputError;
        }
        if (invariants.getValue()) {
          const api::PlaceInvariants flows = api::placeInvariants(model);
          if (!flows.complete)
            std::cout << "P-invariants: too many to enumerate (Farkas' algorithm gave up)\n";
          else
            std::cout << "P-invariants (" << flows.semiflows.size() << "):\n";
          for (const std::string& f : flows.semiflows) std::cout << "  " << f << '\n';
          if (flows.bounded)
            std::cout << "bounded: every place is covered by a P-invariant or bounded by an "
                         "inhibitor arc\n";
          else {  // a place a line: a contest net has 16,000
            const std::size_t n = flows.unproven.size();
            std::cout << "not proven bounded (" << n << (n == 1 ? " place" : " places") << "):\n";
            for (const std::string& place : flows.unproven) std::cout << "  " << place << '\n';
          }
        }
        std::cout << std::flush;  // the listing before the summary on a shared terminal
        std::cerr << input.file.getValue() << ": ok: " << n.placeCount() << " places, "
                  << n.transitionCount() << " transitions";
        if (n.unfolded())
          std::cerr << ", unfolded from " << n.bindingsKept() << " bindings kept of "
                    << n.bindingsTried() << " colour values tried";
        std::cerr << '\n';
        return kSuccess;
      });
}

}  // namespace mmt::tools
