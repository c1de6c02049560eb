#!/usr/bin/env python3
"""Mutation fuzzing of nnlb's inputs through the real command line (docs/fuzzing.md).

Each case is a mutated seed file of one input kind, given to the `nnlb` binary with a time and
an address-space limit. A case fails when nnlb
  - ends by a signal (a crash) or with a status other than 0 and 2,
  - exits 2 without exactly one error line ("nnlb: ...", the last line; notes such as the
    results store's name may come before it),
  - exits 2 and leaves an output file behind (a sweep may keep its store: the runs it finished),
  - exits 0 with a result that is not a number (inf or nan printed in its summary),
  - exits 2 with "out of memory" (an input must be refused by its estimate before it allocates),
    or with an error that names neither a key, the input file nor an option,
    or with an error that names a key the case does not set and its engine does not read (a
    message pointing the wrong way),
  - is still running at the time limit and is not merely a long run: a scenario or a trace that,
    run again with its stop rule shortened (stop.time = 1 for des and p2p, 1e-3 for a trace,
    stop.steps = 1000 for sync),
    ends with a result or with an error naming that stop key, or a sweep that has stored
    records, is counted as long, not failed.
Some cases of the pairs kind run `nnlb analyze` instead of `nnlb run`, and some of the scenario
kind run with `--repeat`.
Failing cases are saved with what went wrong; the run ends with a summary line and status 1 if
any case failed. Python 3 standard library only.
"""
import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))

# How each kind reaches nnlb: the case file's suffix and the command (CASE and OUT are filled in).
KINDS = {
    "scenario": (".toml", ["run", "{CASE}", "--out", "{OUT}/r.json", "--max-memory", "1G", "--threads", "1"]),
    "sweep": (".toml", ["sweep", "{CASE}", "--store", "{OUT}/s.jsonl", "--out-dir", "{OUT}", "-q", "--max-memory", "1G",
                        "--threads", "1"]),
    "graph-edges": (".edges", ["run", "--set", "topology=file:{CASE}", "--set", "stop.steps=20", "--out", "{OUT}/r.json"]),
    "graph-metis": (".graph", ["run", "--set", "topology=file:{CASE}", "--set", "stop.steps=20", "--out", "{OUT}/r.json"]),
    "load": (".txt", ["run", "--set", "topology=ring:8", "--set", "load.init=file:{CASE}", "--set", "stop.steps=20",
                      "--out", "{OUT}/r.json"]),
    "platform": (".txt", ["run", "--set", "topology=mesh:4x4", "--set", "engine=des", "--set", "agent=rounds", "--set",
                          "algorithm=mr", "--set", "platform.file={CASE}", "--set", "stop.time=2", "--out", "{OUT}/r.json"]),
    # SimGrid XML platforms (docs/simgrid.md): zones, routes, clusters, attributes at edge values.
    "simgrid-platform": (".xml", ["run", "--set", "engine=simgrid", "--set", "topology=ring:4", "--set", "platform.file={CASE}",
                                  "--set", "stop.time=1", "--out", "{OUT}/r.json"]),
    "tasks": (".txt", ["run", "--set", "engine=des", "--set", "algorithm=ca", "--set", "tasks.cores=4", "--set", "tasks.init=file:{CASE}",
                       "--out", "{OUT}/r.json"]),
    "trace": (".trace", ["run", "--set", "engine=des", "--set", "load.trace={CASE}", "--set", "algorithm=best-effort",
                         "--set", "load.trace_choice=line-blocks", "--out", "{OUT}/r.json"]),
    "plot": (".jsonl", ["plot", "{CASE}", "--kind", "series", "--x", "steps", "--y", "imbalance", "--out", "{OUT}/p.png"]),
    # Job strategies on p2p and des: guest graphs, mappings, churn, selection, the p2p.* keys.
    "p2p": (".toml", ["run", "{CASE}", "--out", "{OUT}/r.json", "--max-memory", "1G", "--threads", "1"]),
    # Every engine x algorithm of `nnlb list`, with keys of the whole list added by the mutations;
    # generated, not read from a corpus folder.
    "pairs": (".toml", ["run", "{CASE}", "--out", "{OUT}/r.json", "--max-memory", "1G", "--threads", "1"]),
}

# Other commands some cases of a kind run instead (one in four): analyze for every engine x
# algorithm pair; a run repeated many times for a scenario.
ALTERNATIVES = {
    "pairs": [["analyze", "{CASE}"]],
    "scenario": [["run", "{CASE}", "--repeat", "1000000", "--out", "{OUT}/r.json", "--max-memory", "1G", "--threads", "1"],
                 ["run", "{CASE}", "--repeat", "1000", "--out", "{OUT}/r.json", "--max-memory", "1G", "--threads", "1"]],
}

# Files a failed command may leave: a sweep's store holds the runs it finished before failing.
MAY_KEEP = {"sweep": {"s.jsonl"}}

INTERESTING = ["0", "-1", "1", "2", "-0", "0.5", "1e308", "-1e308", "1e-308", "1e-300", "4294967296", "18446744073709551616",
               "9223372036854775807", "nan", "inf", "-inf", "1e30", "3e8", "65536", "1000000", '""', '"x"', "true", "[]",
               "{}", "[1, 2]", '"file:/dev/zero"', '"file:."', '"`touch X`"', "'\\n'",
               # task keys' texts: a background changing every picosecond, a task set of huge or tiny tasks
               '"random:0.5,1,1e-12"', '"random:0,1,1e-300"', '"uniform:200,1e308,1e308"', '"cq:100000000"']
TOPOLOGIES = ["line:0", "line:1", "ring:2", "mesh:0x3", "torus:4x0", "hypercube:0", "hypercube:40", "kary:1,3",
              "complete:1", "complete:100000", "star:1", "random-regular:5,3", "erdos-renyi:10,0", "p2p:1",
              "mesh:2x2x2x2x2x2", "torus:1000000x1000000", "line:-3", "line:1e9", "file:", "file:/nonexistent"]


def keys_of(nnlb):
    """Scenario keys from `nnlb list` (lines that start with a dotted lower-case name)."""
    out = subprocess.run([nnlb, "list"], capture_output=True, text=True).stdout
    keys = set(re.findall(r"^\s{2}([a-z_]+(?:\.[a-z_]+)+)\s", out, re.M))
    keys |= set(re.findall(r"^\s{2}([a-z_]+)\s+(?:string|number|integer|boolean)", out, re.M))
    return sorted(keys) or ["topology", "algorithm", "load.init", "stop.steps"]


def pairs_of(nnlb):
    """One seed a pair of `nnlb list`: an engine, an algorithm, the keys it needs, short stops."""
    out = subprocess.run([nnlb, "list"], capture_output=True, text=True).stdout
    engines = re.findall(r"^  ([a-z]\w*)\s", out.split("Engines (")[1].split("Scenario keys")[0], re.M)
    algorithms = re.findall(r"^  ([a-z][a-z0-9-]*)\s", out.split("Policies (")[1].split("Engines (")[0], re.M)
    seeds = []
    for engine in engines:
        for algorithm in algorithms:
            text = 'engine = "%s"\nalgorithm = "%s"\ntopology = "ring:6"\nstop.steps = 200\n' % (engine, algorithm)
            if engine != "sync" and engine != "rounds":
                text += "stop.time = 5\n"
            if algorithm in ("en", "dasud", "pm", "sid", "push", "pull"):
                text += 'guest.graph = "ring:12"\n'
            if algorithm in ("dd", "ms", "ca"):
                text = text.replace('topology = "ring:6"\n', "") + 'tasks.cores = 4\ntasks.init = "uniform:20,1,2"\n'
            seeds.append(text)
    return seeds


def mutate(data, rng, keys, corpus):
    """One to four random edits of the text: bytes, tokens, lines, keys, or a splice."""
    text = data
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        lines = text.split("\n")
        if op == 0 and text:  # flip / insert / delete bytes
            i = rng.randrange(len(text))
            choice = rng.randrange(3)
            if choice == 0:
                text = text[:i] + chr(rng.randrange(1, 256)) + text[i + 1:]
            elif choice == 1:
                text = text[:i] + rng.choice(["\n", "=", '"', "[", "]", "{", "}", ",", ".", "-", "\\", "\0", "#", " "]) + text[i:]
            else:
                text = text[:i] + text[i + rng.randint(1, 8):]
        elif op in (1, 2):  # replace a number or a quoted string by an interesting value
            tokens = list(re.finditer(r'-?\d+(?:\.\d+)?(?:e-?\d+)?|"[^"\n]*"', text))
            if tokens:
                m = rng.choice(tokens)
                text = text[:m.start()] + rng.choice(INTERESTING) + text[m.end():]
        elif op == 3 and lines:  # duplicate, delete or swap lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            choice = rng.randrange(3)
            if choice == 0:
                lines.insert(i, lines[j])
            elif choice == 1:
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == 4:  # add a key with an interesting value
            text += "\n%s = %s\n" % (rng.choice(keys), rng.choice(INTERESTING))
        elif op == 5:  # a topology
            text += '\ntopology = "%s"\n' % rng.choice(TOPOLOGIES)
        elif op == 6 and corpus:  # splice with another seed
            other = rng.choice(corpus)
            text = text[: rng.randrange(len(text) + 1)] + other[rng.randrange(len(other) + 1):]
        elif op == 7:  # repeat a chunk (deep nesting, long lines, many entries)
            if text:
                i = rng.randrange(len(text))
                chunk = text[i:i + rng.randint(1, 16)]
                text = text[:i] + chunk * rng.choice([2, 10, 1000]) + text[i:]
        elif op == 8:  # numbers in graph/load files: big, negative, non-integer
            tokens = list(re.finditer(r"\d+", text))
            if tokens:
                m = rng.choice(tokens)
                text = text[:m.start()] + rng.choice(["0", "-1", "4000000000", "3.5", "1e9", "99999999999999999999", "nan", "x"]) + text[m.end():]
        else:  # truncate
            text = text[: rng.randrange(len(text) + 1)]
    return text


# Load traces (kind trace): item weights and the steps each rank records, at edge values.
TRACE_WEIGHTS = ["0", "-0", "-1", "1e-308", "5e-324", "1e308", "1.7976931348623157e308", "8.99e307", "inf", "nan", "-inf",
                 "9007199254740993", "1e16", "4294967296", "18446744073709551616", "1e-16", "0x10", "1e309"]
TRACE_TIMES = ["0", "-0", "-1", "1e-308", "5e-324", "1e-12", "1e9", "1e15", "1e308", "nan", "inf", "4294967296"]
TRACE_COUNTS = [0, 1, 2, 10, 1000, 100000]


def mutate_trace(text, rng):
    """One to three edits of a trace's numbers: one weight, or several to one value (sums that
    overflow, an application whose every item is huge or tiny); the steps a rank records (none,
    one, thousands, an unequal count per rank); a step's load, a time, the ranks, the period."""
    lines = text.split("\n")

    def where(*kinds):
        return [i for i, l in enumerate(lines) if l.split(" ", 1)[0] in kinds]

    def set_field(i, k, value):
        f = lines[i].split(" ")
        if k < len(f):
            f[k] = value
            lines[i] = " ".join(f)

    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        weighed, steps = where("add", "weight"), where("step")
        if op == 0 and weighed:  # one weight
            set_field(rng.choice(weighed), 4, rng.choice(TRACE_WEIGHTS))
        elif op == 1 and weighed:  # 2 .. all weights to one value
            value = rng.choice(TRACE_WEIGHTS)
            for i in rng.sample(weighed, rng.randint(min(2, len(weighed)), len(weighed))):
                set_field(i, 4, value)
        elif op == 2 and steps:  # a rank's steps: none, or one of them recorded many times
            rank = lines[rng.choice(steps)].split(" ")[2:3]
            mine = [i for i in steps if lines[i].split(" ")[2:3] == rank]
            count = rng.choice(TRACE_COUNTS)
            if count == 0:
                drop = set(mine)
                lines = [l for i, l in enumerate(lines) if i not in drop]
            else:
                i = rng.choice(mine)
                lines[i + 1:i + 1] = [lines[i]] * count
        elif op == 3 and steps:  # a step's load or time
            set_field(rng.choice(steps), rng.choice([1, 3]), rng.choice(TRACE_WEIGHTS + TRACE_TIMES))
        elif op == 4:  # any event's time, or the end
            events = where("add", "weight", "step", "end")
            if events:
                set_field(rng.choice(events), 1, rng.choice(TRACE_TIMES))
        elif op == 5:  # the ranks, a rank or an item id, the recorded period
            choice = rng.randrange(3)
            if choice == 0 and where("ranks"):
                set_field(where("ranks")[0], 1, rng.choice(["0", "1", "2", "1048576", "1048577", "4294967296", "-1"]))
            elif choice == 1 and weighed:
                set_field(rng.choice(weighed), rng.choice([2, 3]), rng.choice(["0", "-1", "3", "1048576", "18446744073709551615",
                                                                                 "18446744073709551616", "1e3"]))
            else:
                lines.insert(min(3, len(lines)), "meta period " + rng.choice(TRACE_TIMES))
        elif op == 6 and weighed:  # many items: an add repeated with new ids
            f = lines[rng.choice(where("add") or weighed)].split(" ")
            if len(f) == 5:
                lines += ["add %s %s %d %s" % (f[1], f[2], 10 ** 7 + k, f[4]) for k in range(rng.choice([10, 1000, 100000]))]
    return "\n".join(lines)


ADDRESS_LIMIT = 4 << 30  # bytes of address space a case may take; 0: none (AddressSanitizer builds)


def limit_child():
    if ADDRESS_LIMIT:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.nice(5)


LONG = "long run"


def long_run(cmd, kind, text, out, work, timeout):
    """A case that hit the time limit: LONG if it is a bounded run that is merely long."""
    if kind == "sweep":
        store = os.path.join(out, "s.jsonl")
        return LONG if os.path.exists(store) and os.path.getsize(store) > 0 else "no end within %g s, nothing stored" % timeout
    if kind not in ("scenario", "p2p", "pairs", "trace"):
        return "no end within %g s" % timeout
    try:
        engine = "des" if kind == "trace" else tomllib.loads(text).get("engine", "sync")
    except Exception:
        engine = "sync"
    # A trace replays to its recorded end: a thousandth of a second of it (a trace of 2^20 ranks,
    # each a node, takes 30 s for its 0.09 s).
    bound = ["--set", "stop.time=1e-3" if kind == "trace" else "stop.time=1"] if engine in ("des", "p2p") else ["--set", "stop.steps=1000"]
    try:
        p = subprocess.run(cmd + bound, cwd=work, capture_output=True, timeout=timeout, preexec_fn=limit_child)
    except subprocess.TimeoutExpired:
        return "no end within %g s, even with %s" % (timeout, bound[1])
    stop_key = bound[1].split("=")[0]
    if p.returncode != 0 and stop_key not in p.stderr.decode(errors="replace"):
        return "no end within %g s, and with %s no result either (exit %d)" % (timeout, bound[1], p.returncode)
    return LONG


NOT_A_NUMBER = re.compile(r"(?<![\w.-])-?(inf|nan)(?![\w.])", re.I)
NAMED_KEY = re.compile(r"key '([a-z_]+(?:\.[a-z_]+)+)'")


def honours_of(nnlb):
    """Per engine of `nnlb list`: the engine-specific keys it honours, and those it does not."""
    out = subprocess.run([nnlb, "list"], capture_output=True, text=True).stdout
    honours = {}
    for engine, keys in re.findall(r"^  ([a-z]\w*) .*\n\s+time: .*?its own keys: (.*)$", out, re.M):
        names = [k.strip() for k in keys.split(",")]
        honours[engine] = ([k[:-1] if k.endswith("*") else k for k in names if not k.startswith("not ")],
                           [k[4:] for k in names if k.startswith("not ")])
    return honours


def honoured(key, patterns):
    return any(key.startswith(p) if p.endswith(".") else key == p for p in patterns)


def wrong_key(message, text, kind, honours):
    """A key an error names that the case does not set and its engine does not read, when the
    error is not about that (a message pointing the wrong way, as des's period bounds named on p2p)."""
    if kind not in ("scenario", "p2p", "pairs") or "not honoured" in message or "unknown key" in message:
        return None
    try:
        engine = tomllib.loads(text).get("engine", "sync")
    except Exception:
        return None
    if not isinstance(engine, str) or engine not in honours:
        return None
    every = [p for own, _ in honours.values() for p in own]
    own, excluded = honours[engine]
    for key in NAMED_KEY.findall(message):
        specific = honoured(key, every)
        if specific and key not in re.sub(r"\s", "", text) and (not honoured(key, own) or honoured(key, excluded)):
            return key
    return None


def run_case(nnlb, kind, text, work, timeout, argv=None, honours=None):
    """Runs one case; returns None if it behaved, else what went wrong."""
    suffix, default_argv = KINDS[kind]
    argv = argv or default_argv
    case = os.path.join(work, "case" + suffix)
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with open(case, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    cmd = [nnlb] + [a.replace("{CASE}", case).replace("{OUT}", out) for a in argv]
    try:
        p = subprocess.run(cmd, cwd=work, capture_output=True, timeout=timeout, preexec_fn=limit_child)
    except subprocess.TimeoutExpired:
        return long_run(cmd, kind, text, out, work, timeout)
    if p.returncode < 0:
        return "killed by signal %d" % -p.returncode
    if p.returncode not in (0, 2):
        return "exit status %d" % p.returncode
    if p.returncode == 0 and kind not in ("plot",):
        bad = NOT_A_NUMBER.search(p.stdout.decode(errors="replace"))
        if bad:
            return "exit 0 with a result that is not a number ('%s')" % bad.group(0)
    if p.returncode == 2:
        lines = [l for l in p.stderr.decode(errors="replace").split("\n") if l.strip()]
        errors = [l for l in lines if l.startswith("nnlb:")]
        if len(errors) != 1 or lines[-1] != errors[0]:
            return "exit 2 with %d error lines on stderr" % len(errors)
        left = sorted(set(os.listdir(out)) - MAY_KEEP.get(kind, set()))
        if left:
            return "exit 2 left %s" % ", ".join(left)
        if "out of memory" in errors[0]:
            return "exit 2 out of memory instead of a refusal by the estimate"
        if kind not in ("plot", "sweep") and "key '" not in errors[0] and case not in errors[0] and not errors[0].startswith("nnlb: --"):
            return "exit 2 naming neither a key, the input file nor an option"
        key = wrong_key(errors[0], text, kind, honours)
        if key:
            return "exit 2 naming key %s, which the case does not set and its engine does not read" % key
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=sorted(KINDS))
    ap.add_argument("--nnlb", default=os.path.join(HERE, "..", "..", "build", "nnlb"))
    ap.add_argument("--seconds", type=float, default=60,
                    help="CPU seconds to spend: user + system of this harness and of every nnlb it ran")
    ap.add_argument("--timeout", type=float, default=20, help="seconds one case may take")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--findings", default=os.path.join(HERE, "findings"))
    ap.add_argument("--seeds-only", action="store_true", help="run each seed file once, unmutated, and stop")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="with --seeds-only, run the N-th seed, the 2N-th, ... only (the sanitizer pass, where the "
                         "gtest EveryPair runs the first, the (N+1)-th, ...: tests/case_sample.hpp)")
    ap.add_argument("--no-address-limit", action="store_true",
                    help="no 4 GiB address-space limit (AddressSanitizer reserves terabytes for its shadow memory)")
    a = ap.parse_args()
    global ADDRESS_LIMIT
    if a.no_address_limit:
        ADDRESS_LIMIT = 0
    nnlb = os.path.abspath(a.nnlb)
    corpus_dir = os.path.join(HERE, "corpus", a.kind.split("-")[0] if a.kind.startswith("graph") else a.kind)
    suffix = KINDS[a.kind][0]
    if a.kind == "pairs":
        corpus = pairs_of(nnlb)
    else:
        corpus = [open(os.path.join(corpus_dir, f), encoding="utf-8", errors="surrogateescape").read()
                  for f in sorted(os.listdir(corpus_dir)) if f.endswith(suffix)]
    if not corpus:
        sys.exit("fuzz.py: no seed files ending in %s in %s" % (suffix, corpus_dir))
    if a.seeds_only:
        corpus = corpus[max(a.every, 1) - 1::max(a.every, 1)]
    rng = random.Random(a.seed)
    keys = keys_of(nnlb)
    honours = honours_of(nnlb)
    work = tempfile.mkdtemp(prefix="nnlb-fuzz-")
    cases = failures = long_runs = 0
    def cpu_now():
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    start_cpu = cpu_now()
    start = time.time()
    try:
        while True:
            cpu = cpu_now() - start_cpu
            if cpu >= a.seconds or (a.seeds_only and cases == len(corpus)):
                break
            seed_text = corpus[cases % len(corpus)] if cases < len(corpus) else rng.choice(corpus)
            if cases < len(corpus):
                text = seed_text
            elif a.kind == "trace" and rng.random() < 0.5:  # the trace's own numbers, else any edit
                text = mutate_trace(seed_text, rng)
            else:
                text = mutate(seed_text, rng, keys, corpus)
            cases += 1
            argv = rng.choice(ALTERNATIVES[a.kind]) if a.kind in ALTERNATIVES and cases > len(corpus) and rng.random() < 0.25 else None
            problem = run_case(nnlb, a.kind, text, work, a.timeout, argv, honours)
            if problem == LONG:
                long_runs += 1
            elif problem:
                failures += 1
                os.makedirs(a.findings, exist_ok=True)
                name = os.path.join(a.findings, "%s-%d-%d%s" % (a.kind, a.seed, cases, suffix))
                with open(name, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text)
                with open(name + ".why", "w") as f:
                    f.write(problem + "\n" + ("command: nnlb " + " ".join(argv) + "\n" if argv else ""))
                print("%s: %s" % (name, problem), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%s: %d cases, %.0f CPU s, %.0f s wall, %d long runs, %d failed" % (a.kind, cases, cpu, time.time() - start,
                                                                                    long_runs, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
