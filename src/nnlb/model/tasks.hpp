#pragma once
// Independent tasks (Filipović & Krstajić 2016): work amounts in seconds on a core of the
// reference speed, with identities (their position in the set), and their first assignment to
// cores.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>


namespace nnlb {

// The task set of a spec (InputError, key tasks.init, otherwise):
//  file:PATH          one work amount per line ('#' comments), in seconds, > 0;
//  cq:N               N tasks like the paper's crosspoint-queued switch simulations (sec. 4,
//                     Fig. 4, over 800,000 runs: 95 % between 12 and 18 s, mean 15.10 s, longest
//                     165 s): a Normal(15.09, 1.5) body on [9, 21] and 1 task in 1000 from a
//                     Pareto tail (18 s, alpha 3, at most 165 s); docs/reproductions/
//                     filipovic2016.md shows the fit;
//  cq-structured:N    as cq, in the paper's order (8 switching algorithms x 12 buffer sizes x 32
//                     traffic files, files fastest), each algorithm and buffer size with a factor
//                     of its own (our choice, held to the same statistics);
//  uniform:N,LO,HI    N tasks uniform in [LO, HI], 0 < LO <= HI.
std::vector<double> make_tasks(std::string_view spec, std::uint64_t seed, const std::string& base_dir = {});

// How the tasks are first split among cores (domain decomposition): `block` contiguous in file
// order, the first n mod P cores one more; `cyclic` task k to core k mod P; `random` each task to
// a core drawn at random; `speed` contiguous blocks in proportion to the cores' speeds.
enum class TaskSplit { block, cyclic, random, speed };
TaskSplit parse_task_split(std::string_view text);

// Which of `speed.size()` cores (with these speeds) each task goes to first.
std::vector<std::uint32_t> split_tasks(const std::vector<double>& work, TaskSplit split, const std::vector<double>& speed,
                                       std::uint64_t seed);

}  // namespace nnlb
