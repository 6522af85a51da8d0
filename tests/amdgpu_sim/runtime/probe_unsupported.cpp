// probe-sim-unsupported: a probe with the framework of every probe (probes/common) whose only variant, on the hip
// backend, launches a kernel with an instruction the simulator does not implement. The run must end as an internal
// error (exit 3) naming the mnemonic, the kernel and the PC: a stop of the simulator is neither a pass nor a fail.
#include <string>
#include <vector>

#include "probes/common/probe.h"

namespace tp_sim_unsupported {
int run_image_load_kernel();  // unsupported_kernel.cu (clang -x hip)
}

namespace {
struct ops {
  int (*run)();
};
const ops hip_ops{&tp_sim_unsupported::run_image_load_kernel};
}  // namespace

int main(int argc, char** argv) {
  using namespace tp::probe;
  app a("probe-sim-unsupported", "an unimplemented instruction stops the simulated launch (exit 3)");
  a.family("sim_unsupported").default_variants("image-load");
  a.use_variant_provider([](std::string_view family) {
    std::vector<registered_variant> v;
    if (family == "sim_unsupported") v.push_back({"sim_unsupported", "image-load", "hip", &hip_ops});
    return v;
  });
  a.source(source_kind::fixture,
           [](case_list& out) { out.push_back(case_def{.id = case_name("sim-unsupported")("launch", 1)}); });
  a.runner([](const case_def&, const variant& v) {
    outcome o;
    o.pass = v.ops_as<ops>().run() == 2;
    return o;
  });
  return a.main(argc, argv);
}
