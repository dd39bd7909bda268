/// `--shard auto`: the shard from the variables that CI systems and cluster schedulers set in each
/// parallel copy of a job. Each variable's base (from 0 or from 1) is as its documentation says,
/// cited beside each reader. A variable set to the empty string counts as unset (CI templates often
/// define variables empty).
enum ShardEnvironment {
    /// Kubernetes tells a pod its index but not how many there are: this supplies the count.
    static let shardCountVariable = "IMGPREP_SHARD_COUNT"

    static func shard(from environment: [String: String]) throws(ShardSpecError) -> ShardSpec {
        let env = environment.filter { !$0.value.isEmpty }
        let found = try [gitLab(env), circleCI(env), buildkite(env), slurm(env), kubernetes(env)].compactMap { $0 }
        if let first = found.first {
            guard found.allSatisfy({ $0.index == first.index && $0.count == first.count }) else {
                let list = found.map { "\($0.origin) means \($0)" }.joined(separator: "; ")
                throw ShardSpecError("--shard auto: the environment names more than one shard (\(list)); pass --shard K/N")
            }
            return first
        }
        // GitLab sets CI_NODE_TOTAL=1 in every job without `parallel:`: one shard, the whole run.
        if env["CI_NODE_TOTAL"] == "1" {
            return try ShardSpec(index: 1, count: 1, origin: "GitLab CI_NODE_TOTAL=1 (a job without parallel:)")
        }
        throw ShardSpecError("""
            --shard auto found no shard in the environment; it reads GitLab (CI_NODE_INDEX, CI_NODE_TOTAL), \
            CircleCI (CIRCLE_NODE_INDEX, CIRCLE_NODE_TOTAL), Buildkite (BUILDKITE_PARALLEL_JOB, \
            BUILDKITE_PARALLEL_JOB_COUNT), Slurm job arrays (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, \
            SLURM_ARRAY_TASK_MAX, SLURM_ARRAY_TASK_COUNT) and Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX \
            with \(shardCountVariable)); elsewhere pass --shard K/N
            """)
    }

    /// GitLab `parallel: N` (docs.gitlab.com, "Predefined CI/CD variables reference" and the
    /// `parallel` keyword): jobs are named `job 1/N` ... `job N/N` and CI_NODE_INDEX is that number,
    /// from 1; CI_NODE_INDEX is absent without `parallel:`, and then CI_NODE_TOTAL is 1.
    static func gitLab(_ env: [String: String]) throws(ShardSpecError) -> ShardSpec? {
        if env["CI_NODE_INDEX"] == nil && (env["CI_NODE_TOTAL"] ?? "1") == "1" { return nil }
        return try pair(env, engine: "GitLab", index: "CI_NODE_INDEX", total: "CI_NODE_TOTAL", base: 1)
    }

    /// CircleCI `parallelism: N` (circleci.com/docs, "Project values and variables"): CIRCLE_NODE_INDEX
    /// ranges from 0 to CIRCLE_NODE_TOTAL - 1; every job has both (0 and 1 without parallelism).
    static func circleCI(_ env: [String: String]) throws(ShardSpecError) -> ShardSpec? {
        try pair(env, engine: "CircleCI", index: "CIRCLE_NODE_INDEX", total: "CIRCLE_NODE_TOTAL", base: 0)
    }

    /// Buildkite `parallelism: N` (buildkite.com/docs, "Environment variables"): BUILDKITE_PARALLEL_JOB
    /// is "the index of each parallel job created from a parallel build step, starting from 0",
    /// BUILDKITE_PARALLEL_JOB_COUNT the number of them.
    static func buildkite(_ env: [String: String]) throws(ShardSpecError) -> ShardSpec? {
        try pair(env, engine: "Buildkite", index: "BUILDKITE_PARALLEL_JOB", total: "BUILDKITE_PARALLEL_JOB_COUNT", base: 0)
    }

    /// Kubernetes Indexed Jobs (kubernetes.io, "Indexed Job for Parallel Processing with Static Work
    /// Assignment"; JobSpec.completionMode): each pod gets an index from 0 to spec.completions - 1 in
    /// JOB_COMPLETION_INDEX. The number of completions is not exported, so the manifest passes it.
    static func kubernetes(_ env: [String: String]) throws(ShardSpecError) -> ShardSpec? {
        if env["JOB_COMPLETION_INDEX"] != nil && env[shardCountVariable] == nil {
            throw ShardSpecError("--shard auto: Kubernetes sets JOB_COMPLETION_INDEX=\(env["JOB_COMPLETION_INDEX"]!) but not the number of pods; set \(shardCountVariable) to the Job's spec.completions")
        }
        return try pair(env, engine: "Kubernetes", index: "JOB_COMPLETION_INDEX", total: shardCountVariable, base: 0)
    }

    /// Slurm job arrays (slurm.schedmd.com, sbatch(1) "OUTPUT ENVIRONMENT VARIABLES" and "Job Array
    /// Support"): SLURM_ARRAY_TASK_ID is the task's own index from `--array`, which need not start at
    /// 0 or 1 and may have a step (`--array=0-15:4` runs 0, 4, 8, 12); SLURM_ARRAY_TASK_MIN/_MAX are
    /// the lowest and highest index, _COUNT the number of tasks, _STEP the step. Slurm sets all four
    /// together, _STEP being the number after ':' in --array or 1 (src/slurmctld/job_mgr.c,
    /// _create_job_array), so a list such as `--array=1,3,8` reports step 1 and cannot be mapped to
    /// shards; it is refused rather than leaving some shard unrun.
    static func slurm(_ env: [String: String]) throws(ShardSpecError) -> ShardSpec? {
        let names = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT"]
        let stepName = "SLURM_ARRAY_TASK_STEP"
        guard (names + [stepName]).contains(where: { env[$0] != nil }) else { return nil }
        let missing = names.filter { env[$0] == nil }
        guard missing.isEmpty else {
            throw ShardSpecError("--shard auto: Slurm array variables are incomplete: \(missing.joined(separator: ", ")) not set (these come from sbatch --array)")
        }
        let id = try number(env, "SLURM_ARRAY_TASK_ID"), low = try number(env, "SLURM_ARRAY_TASK_MIN")
        let high = try number(env, "SLURM_ARRAY_TASK_MAX"), count = try number(env, "SLURM_ARRAY_TASK_COUNT")
        let step = env[stepName] == nil ? 1 : try number(env, stepName)
        let shown = (names + [stepName]).compactMap { name in env[name].map { "\(name)=\($0)" } }.joined(separator: " ")
        let (span, overflow) = (count - 1).multipliedReportingOverflow(by: step)
        guard count >= 1, step >= 1, !overflow, low <= high, high - low == span else {
            throw ShardSpecError("--shard auto: the Slurm array is not evenly spaced (\(shown)); submit it as --array=A-B or --array=A-B:STEP, or pass --shard K/N")
        }
        guard id >= low, id <= high, (id - low) % step == 0 else {
            throw ShardSpecError("--shard auto: SLURM_ARRAY_TASK_ID is not one of the array's indices (\(shown))")
        }
        return try ShardSpec(index: (id - low) / step + 1, count: count, origin: "Slurm \(shown)")
    }

    /// An index and a total, both set or both unset, the index counted from `base`.
    static func pair(_ env: [String: String], engine: String, index indexName: String, total totalName: String,
                     base: Int) throws(ShardSpecError) -> ShardSpec? {
        switch (env[indexName], env[totalName]) {
        case (nil, nil):
            return nil
        case (let value?, nil):
            throw ShardSpecError("--shard auto: \(engine) sets \(indexName)=\(value) but not \(totalName)")
        case (nil, let value?):
            throw ShardSpecError("--shard auto: \(engine) sets \(totalName)=\(value) but not \(indexName)")
        case (.some, .some):
            let index = try number(env, indexName), total = try number(env, totalName)
            guard total >= 1 else { throw ShardSpecError("--shard auto: \(totalName)=\(total) must be at least 1") }
            guard index >= base, index - base < total else {
                throw ShardSpecError("--shard auto: \(indexName)=\(index) is out of range for \(totalName)=\(total) (\(engine) counts from \(base), so it must be \(base)...\(total - 1 + base))")
            }
            return try ShardSpec(index: index - base + 1, count: total, origin: "\(engine) \(indexName)=\(index) \(totalName)=\(total)")
        }
    }

    static func number(_ env: [String: String], _ name: String) throws(ShardSpecError) -> Int {
        let text = env[name] ?? ""
        guard let value = ShardSpec.wholeNumber(Substring(text)) else {
            throw ShardSpecError("--shard auto: \(name)='\(text)' is not a whole number")
        }
        return value
    }
}
