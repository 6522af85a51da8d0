// One fa probe case through a tree variant, as the probes will run it: the geometry and data of probes/fa_support
// (seeded, fp16 values, the fp64 oracle and its derived bound), the variant's ops from the registry on --backend hip,
// its run_result judged row by row against the oracle: the path the fa probes' tree lists take (fa_support tree_run),
// one case at a time.
//
//   tp-fa-tree-case --variant tree-upstream --config rdna-d128-ncols64 --ncols2 8 --kernel f16
//                   [--n-q 64] [--n-kv 128] [--n-tail 16] [--heads 1] [--gqa 8] [--cus 48] [--occupancy 1] [--seed 1]
//                   [--records BITS [--records-tail N] [--tamper-records]]
// --records (kvarn-kvarn): the K/V groups before the stage's tail window are stored as records by the tree's own store
// kernels (fa_support geometry records_bits); the oracle attends over what they decode to. --tamper-records then runs
// the kernel on a copy whose record payloads are inverted (every bit flipped) after the oracle read the originals:
// the run must fail, which shows the kernel reads the records (a run that ignored them could not tell).
// Exit: 0 every row within the bound; 1 wrong rows, or the tree compiles this kernel out on the device's arch
// ("no device code ..."); 2 bad usage or no such variant/instance; 3 a device error (a simulator stop names the
// instruction, kernel and PC); 77 no HIP device.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "kernels/fattn/api.h"
#include "probes/fa_support/fa_support.h"
#include "simt/host.h"
#include "simt/registry.h"

int main(int argc, char** argv) {
  CLI::App cli{"one fa probe case through a fattn tree variant on --backend hip"};
  std::string variant, config, kernel = "f16";
  fa_probe::geometry g;
  g.kvarn = false;  // fp16 data as drawn: the KVarN kernel reads them from its descriptors' f16 stage, unquantised
  cli.add_option("--variant", variant, "tree variant (tree-upstream, tree-fixed, ...)")->required();
  cli.add_option("--config", config, "a config of kernels/fattn/api.h")->required();
  cli.add_option("--ncols2", g.ncols2, "Q heads per tile (kernels/fattn_tree/instances.h lists those built)")
      ->required();
  cli.add_option("--kernel", kernel, "f16 | kvarn-kvarn");
  cli.add_option("--n-q", g.n_q, "query tokens");
  cli.add_option("--n-kv", g.n_kv, "body KV length");
  cli.add_option("--n-tail", g.n_tail, "tail tokens (0: no tail merge)");
  cli.add_option("--heads", g.n_head, "K/V heads");
  cli.add_option("--gqa", g.gqa, "Q heads per K/V head (default: ncols2)");
  cli.add_option("--cus", g.cus, "modelled CUs (launch_fattn's nsm)");
  cli.add_option("--occupancy", g.occupancy, "modelled resident blocks per CU");
  cli.add_option("--seed", g.data_seed, "data seed");
  bool tamper = false;
  cli.add_option("--records", g.records_bits, "KVarN records of this many bits (2..8) made by the tree's store kernels")
      ->check(CLI::IsMember({2, 3, 4, 5, 6, 8}));
  cli.add_option("--records-tail", g.records_tail, "lossless tail groups of the stage (records cases)")
      ->check(CLI::PositiveNumber);
  cli.add_flag("--tamper-records", tamper, "run the kernel on inverted record payloads (the run must then fail)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  g.config = tp::fattn::find_config(config);
  if (g.config < 0 || !tp::fattn::parse_kernel_kind(kernel, g.kernel)) {
    std::fprintf(stderr, "tp-fa-tree-case: unknown --config %s or --kernel %s\n", config.c_str(), kernel.c_str());
    return 2;
  }
  if (g.gqa == 1 && g.ncols2 > 1) g.gqa = g.ncols2;
  const auto* ops = tp::find_variant<tp::fattn::ops>("fattn", variant, tp::backend::hip);
  if (!ops) {
    std::fprintf(stderr, "tp-fa-tree-case: no fattn variant %s built for the hip backend\n", variant.c_str());
    return 2;
  }
  if (const std::string why = tp::backend_unusable(tp::backend::hip); !why.empty()) {
    std::fprintf(stderr, "tp-fa-tree-case: %s\n", why.c_str());
    return 2;
  }
  if (!tp::backend_available(tp::backend::hip)) {
    std::printf("skipped: no HIP device (TILEPROBE_HIP=sim:gfx1100 runs the tree on tileprobe's simulator)\n");
    return 77;
  }
  if (tamper && g.records_bits == 0) {
    std::fprintf(stderr, "tp-fa-tree-case: --tamper-records needs --records\n");
    return 2;
  }
  if (g.records_bits > 0) g.kvarn = false;  // the store quantises the data as drawn
  std::printf("device: %s\n", tp::device_description(tp::backend::hip).c_str());
  try {
    const auto data = fa_probe::prepare(g);
    tp::fattn::problem problem = data->problem(g);
    tp::fattn::kvarn_records tampered;
    if (data->records) {
      std::printf("records: %d-bit, tail window %d group(s): %d record(s) per side (K and V), stored by %s's store "
                  "kernels; the oracle attends over their decoding\n",
                  g.records_bits, g.records_tail, data->records_per_side, data->records_by.c_str());
      if (tamper) {
        tampered = *data->records;
        const std::size_t payload = std::size_t(128) * 128 * g.records_bits / 8;
        for (auto* side : {&tampered.k, &tampered.v})
          for (std::size_t r = 0; r + tampered.record_bytes <= side->records.size(); r += tampered.record_bytes)
            for (std::size_t b = 0; b < payload; ++b) side->records[r + b] ^= 0xFF;
        problem.records = &tampered;
        std::printf("tampered: every record's payload inverted after the oracle decoded it\n");
      }
    }
    const tp::fattn::device_model dev{g.cus, g.occupancy, true};
    const auto r = ops->run(g.config, problem, dev, tp::fattn::run_options{.with_tail_merge = g.n_tail > 0});
    const auto rc = fa_probe::check_rows(r.out, *data, fa_probe::dv(g));
    std::printf("plan: %d tiles x %d KV batches on %d blocks, fixup %s\n", r.plan.ntiles, r.plan.iter_k, r.plan.blocks,
                tp::fattn::to_string(r.plan.fixup));
    std::printf("%s: wrong rows %zu of %zu (bound %.3g, max err %.3g)\n", variant.c_str(), rc.wrong.size(),
                data->ref.size() / fa_probe::dv(g), data->bound, rc.max_err);
    return rc.wrong.empty() ? 0 : 1;
  } catch (const tp::fattn::no_device_code& e) {
    std::printf("not run: %s\n", e.what());
    return 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tp-fa-tree-case: %s\n", e.what());
    return 2;
  } catch (const tp::probe::usage_error& e) {
    std::fprintf(stderr, "tp-fa-tree-case: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::printf("device error: %s\n", e.what());
    return 3;
  }
}
