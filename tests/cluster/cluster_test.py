#!/usr/bin/env python3
"""Cluster tests (issue #23, "A real cluster"): karrow jobs on a standalone Flink 2.2 cluster.

Run by tests/cluster/run.sh, which starts the broker and the cluster (tests/services/). Every job
is SQL submitted the way a user submits it: `bin/sql-client.sh -f FILE` (embedded gateway,
remote cluster) or the SQL Gateway's REST API (/v1/sessions/.../statements). The stock formats
and connector are the oracle: outputs are compared byte for byte.

  (a) kafka-native + json-native, Kafka to Kafka, gives the bytes of kafka + json
  (b) two karrow jobs running at once in the cluster (submitted through the Gateway's REST API),
      one through the kafka-native sink, one through the kafka sink with json-native; karrow's
      encode metrics (records, bytes, native time, batches) read through Flink's Prometheus
      metric reporter match what each job wrote
  (c) json-native with the filesystem connector only (no Kafka in the job)
  (d) with --long: an exactly-once kafka-native + json-native job, its TaskManager SIGKILLed
      while input arrives; the committed output is exactly the input: no loss, no duplicate
  (e) with --long: stop-with-savepoint of a kafka + json job, resumed from the savepoint as
      kafka-native + json-native (and back), the output exactly the input: no loss, no duplicate
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KAFKA_SH = os.path.join(REPO, "tests/services/kafka.sh")
CLUSTER_SH = os.path.join(REPO, "tests/services/flink-cluster.sh")
BOOTSTRAP = "127.0.0.1:" + os.environ.get("KAFKA_PORT", "35092")
REST = "http://127.0.0.1:" + os.environ.get("FLINK_REST_PORT", "35100")
GATEWAY = "http://127.0.0.1:" + os.environ.get("FLINK_GATEWAY_PORT", "35130")
ROWS = int(os.environ.get("CLUSTER_TEST_ROWS", "3000"))
RUN = str(int(time.time()))
FLINK_HOME = subprocess.check_output([CLUSTER_SH, "home"], text=True).strip()
INSTANCE = os.path.join(os.path.dirname(FLINK_HOME), "cluster-" + REST.rsplit(":", 1)[1])
WORK = tempfile.mkdtemp(prefix="cluster-test-", dir=os.path.join(INSTANCE, "tmp"))

# No FLOAT/DOUBLE: json-native writes JDK 19+ digits, flink-json on Java 17 others for some
# values (issue #23, "Byte-exact on the JVM the job runs on", open elsewhere). MAPs of one entry:
# flink-json writes a decoded map's entries in java.util.HashMap order, json-native in input order
# (/work/shared/flink-format-spec.md, "tests should not rely on multi-entry map order").
COLUMNS = """
  id BIGINT, name STRING, qty INT, price DECIMAL(12, 2), flag BOOLEAN,
  ts TIMESTAMP(3), d DATE, tags ARRAY<STRING>, attrs MAP<STRING, INT>,
  pos ROW<x INT, y STRING>
"""


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def http(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        raw = r.read()
        return json.loads(raw) if raw else {}


def kafka_table(name, connector, fmt, topic, bounded):
    opts = {
        "connector": connector,
        "topic": topic,
        "properties.bootstrap.servers": BOOTSTRAP,
        "properties.group.id": "cluster-test-" + name,
        "scan.startup.mode": "earliest-offset",
        "format": fmt,
    }
    if bounded:
        opts["scan.bounded.mode"] = "latest-offset"
    with_ = ", ".join("'%s' = '%s'" % kv for kv in opts.items())
    return "CREATE TABLE %s (%s) WITH (%s);" % (name, COLUMNS, with_)


def gen_table(name, rows, first):
    return ("CREATE TABLE %s (%s) WITH ('connector' = 'datagen', 'number-of-rows' = '%d', "
            "'fields.id.kind' = 'sequence', 'fields.id.start' = '%d', 'fields.id.end' = '%d', "
            "'fields.attrs.length' = '1', 'fields.name.length' = '12', 'fields.tags.length' = '2');"
            % (name, COLUMNS, rows, first, first + rows - 1))


def fs_table(name, fmt, path):
    return "CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = '%s');" % (
        name, COLUMNS, path, fmt)


def sql_client(name, statements):
    path = os.path.join(WORK, name + ".sql")
    with open(path, "w") as f:
        f.write("SET 'table.dml-sync' = 'true';\n" + "\n".join(statements) + "\n")
    env = dict(os.environ, FLINK_CONF_DIR=os.path.join(INSTANCE, "conf"))
    out = subprocess.run([os.path.join(FLINK_HOME, "bin/sql-client.sh"), "-f", path],
                         env=env, capture_output=True, text=True, timeout=600)
    log = out.stdout + out.stderr
    if out.returncode != 0 or "[ERROR]" in log:
        fail("sql-client -f %s:\n%s" % (path, log[-4000:]))
    return log


def topic(name):
    subprocess.run([KAFKA_SH, "create-topic", name, "1"], check=True, capture_output=True)
    return name


def dump_topic(name, count):
    """The values of a topic's first `count` records, as raw lines (JSON has no newline)."""
    out = subprocess.run(
        [KAFKA_SH, "run-class", "org.apache.kafka.tools.consumer.ConsoleConsumer",
         "--bootstrap-server", BOOTSTRAP, "--topic", name, "--from-beginning",
         "--max-messages", str(count), "--timeout-ms", "60000"],
        capture_output=True, timeout=180)
    lines = out.stdout.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) != count:
        fail("topic %s: %d records read, %d expected" % (name, len(lines), count))
    return lines


def assert_same(label, stock, native):
    if len(stock) != ROWS:
        fail("%s: the stock job wrote %d records, %d expected" % (label, len(stock), ROWS))
    if stock != native:
        diff = next(i for i, (a, b) in enumerate(zip(stock, native)) if a != b) if len(stock) == len(native) else -1
        fail("%s: native output differs from stock (first at %d):\nstock:  %r\nnative: %r" % (
            label, diff, stock[diff] if diff >= 0 else len(stock), native[diff] if diff >= 0 else len(native)))
    print("ok  %s: %d records byte-identical to the stock job's" % (label, len(stock)))


def tm_pids():
    pids = []
    for n in ("tm-1", "tm-2"):
        with open(os.path.join(INSTANCE, "pids", n + ".pid")) as f:
            pids.append(f.read().strip())
    return pids


def native_mappings():
    """Distinct karrow native library files mapped into each TaskManager JVM."""
    out = {}
    for pid in tm_pids():
        libs = set()
        with open("/proc/%s/maps" % pid) as f:
            for line in f:
                if "karrow_native" in line:
                    libs.add(line.split()[-1])
        out[pid] = libs
    return out


def reporter_metrics():
    """Every sample of the Prometheus reporter of the cluster's JVMs (FLINK_PROM_PORTS, a range
    each JVM takes the first free port of): a list of (name, labels, value)."""
    first, _, last = os.environ.get("FLINK_PROM_PORTS", "35150-35159").partition("-")
    samples = []
    for port in range(int(first), int(last or first) + 1):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
                text = r.read().decode()
        except OSError:
            continue
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            head, _, value = line.rpartition(" ")
            name, _, labels = head.partition("{")
            pairs = {}
            for part in labels.rstrip("}").split('",'):
                k, _, v = part.partition('="')
                if k:
                    pairs[k.strip(",")] = v.rstrip('"')
            samples.append((name, pairs, float(value)))
    return samples


def check_encode_metrics(written):
    """(b)'s jobs through Flink's Prometheus metric reporter: karrow's encode metrics count every
    record and byte each job wrote (`written`: bytes of each job's output values), native encode
    time was spent, and only the kafka-native sink (job 1) encodes in batches."""
    deadline = time.time() + 60
    while True:
        # By job and operator: the source's karrow group has numBatches/batchSize of its own.
        by_op = {}
        for name, labels, value in reporter_metrics():
            if "_karrow_" in name and "job_name" in labels:
                metric = name.rsplit("_karrow_", 1)[1]
                key = (labels["job_name"], labels.get("operator_id", labels.get("operator_name", "")))
                op = by_op.setdefault(key, {})
                op[metric] = op.get(metric, 0) + value
        by_job = {}
        for (job_name, _), op in sorted(by_op.items()):
            if "numRecordsEncoded" in op:
                sink = by_job.setdefault(job_name, {})
                for metric, value in op.items():
                    sink[metric] = sink.get(metric, 0) + value
        jobs = [by_job[n] for n in sorted(by_job) if n.endswith(("t1", "t2"))]
        complete = len(jobs) == 2 and all(j.get("numRecordsEncoded") == ROWS for j in jobs)
        if complete or time.time() > deadline:
            break
        time.sleep(2)
    if not complete:
        fail("(b) karrow encode metrics through the Prometheus reporter: %s" % by_job)
    batch_job, record_job = jobs
    for label, job, nbytes in (("kafka-native sink", batch_job, written[0]), ("kafka + json-native", record_job, written[1])):
        if job.get("numBytesEncoded") != nbytes:
            fail("(b) %s: numBytesEncoded %s, the job wrote %d value bytes" % (label, job.get("numBytesEncoded"), nbytes))
        if not job.get("nativeEncodeTimeNanos", 0) > 0:
            fail("(b) %s: no native encode time: %s" % (label, job))
    if not batch_job.get("numBatches", 0) >= 1 or not batch_job.get("batchSize_count", 0) >= 1:
        fail("(b) kafka-native sink: no batch metrics: %s" % batch_job)
    if "numBatches" in record_job:
        fail("(b) kafka + json-native encodes per record, yet reports batches: %s" % record_job)
    print("ok  (b) encode metrics through the Prometheus reporter: kafka-native sink %d records, %d bytes, "
          "%d batches; kafka + json-native %d records, %d bytes" % (
              batch_job["numRecordsEncoded"], batch_job["numBytesEncoded"], batch_job["numBatches"],
              record_job["numRecordsEncoded"], record_job["numBytesEncoded"]))


def gateway_statement(session, statement):
    op = http("POST", "%s/v1/sessions/%s/statements" % (GATEWAY, session), {"statement": statement})["operationHandle"]
    deadline = time.time() + 300
    while time.time() < deadline:
        st = http("GET", "%s/v1/sessions/%s/operations/%s/status" % (GATEWAY, session, op))["status"]
        if st == "FINISHED":
            break
        if st in ("ERROR", "CANCELED", "CLOSED", "TIMEOUT"):
            res = http("GET", "%s/v1/sessions/%s/operations/%s/result/0" % (GATEWAY, session, op))
            fail("gateway statement %s: %s %s" % (statement[:80], st, json.dumps(res)[:3000]))
        time.sleep(0.5)
    res = http("GET", "%s/v1/sessions/%s/operations/%s/result/0" % (GATEWAY, session, op))
    return res


def job_id_of(result):
    if "jobID" in result:
        return result["jobID"]
    for row in (result.get("results") or {}).get("data") or []:
        for field in row.get("fields") or []:
            if isinstance(field, str) and len(field) == 32:
                return field
    fail("no job id in the gateway's result: %s" % json.dumps(result)[:2000])


def main():
    if "--only-crash" in sys.argv:
        taskmanager_crash()
        return
    if "--only-savepoint" in sys.argv:
        savepoint_switch()
        return
    src = topic("cl-in-" + RUN)
    out_stock = topic("cl-out-stock-" + RUN)
    out_native = topic("cl-out-native-" + RUN)

    # One SQL client run (one client JVM): the input (datagen rows, written by the stock connector
    # and format), then (a)'s stock and native jobs, each bounded, one after the other.
    sql_client("kafka", [
        gen_table("gen", ROWS, 1),
        kafka_table("gen_sink", "kafka", "json", src, False),
        "INSERT INTO gen_sink SELECT * FROM gen;",
        kafka_table("s_stock", "kafka", "json", src, True),
        kafka_table("t_stock", "kafka", "json", out_stock, False),
        "INSERT INTO t_stock SELECT * FROM s_stock;",
        kafka_table("s_native", "kafka-native", "json-native", src, True),
        kafka_table("t_native", "kafka-native", "json-native", out_native, False),
        "INSERT INTO t_native SELECT * FROM s_native;",
    ])
    stock = dump_topic(out_stock, ROWS)
    assert_same("(a) sql-client: kafka-native + json-native vs kafka + json", stock, dump_topic(out_native, ROWS))

    # (b) two karrow jobs at once, unbounded, submitted through the SQL Gateway's REST API.
    session = http("POST", GATEWAY + "/v1/sessions", {"sessionName": "cluster-test"})["sessionHandle"]
    outs = [topic("cl-out-b%d-%s" % (i, RUN)) for i in (1, 2)]
    jobs = []
    # Job 1 writes through the kafka-native sink (rows encoded in batches), job 2 through the
    # stock kafka sink with json-native (one serialize call per record): both encode metric paths.
    for i, out in enumerate(outs, 1):
        sink_connector = "kafka-native" if i == 1 else "kafka"
        gateway_statement(session, kafka_table("s%d" % i, "kafka-native", "json-native", src, False).rstrip(";"))
        gateway_statement(session, kafka_table("t%d" % i, sink_connector, "json-native", out, False).rstrip(";"))
        jobs.append(job_id_of(gateway_statement(session, "INSERT INTO t%d SELECT * FROM s%d" % (i, i))))
    try:
        deadline = time.time() + 180
        while True:
            states = {j["jid"]: j["state"] for j in http("GET", REST + "/jobs/overview")["jobs"]}
            if all(states.get(j) == "RUNNING" for j in jobs):
                break
            if time.time() > deadline or any(states.get(j) in ("FAILED", "CANCELED") for j in jobs):
                fail("(b) jobs %s not both RUNNING: %s" % (jobs, states))
            time.sleep(1)
        print("ok  (b) two karrow jobs RUNNING at once: %s" % ", ".join(jobs))
        written = []
        for i, out in enumerate(outs, 1):
            values = dump_topic(out, ROWS)
            assert_same("(b) gateway REST job %d" % i, stock, values)
            written.append(sum(len(v) for v in values))
        check_encode_metrics(written)
        states = {j["jid"]: j["state"] for j in http("GET", REST + "/jobs/overview")["jobs"]}
        if not all(states.get(j) == "RUNNING" for j in jobs):
            fail("(b) a job stopped while the other ran: %s" % states)
        maps = native_mappings()
        loaded = [p for p, libs in maps.items() if libs]
        if not loaded:
            fail("(b) no TaskManager has the karrow native library mapped: %s" % maps)
        for pid, libs in maps.items():
            if len(libs) > 1:
                fail("(b) TaskManager %s mapped %d copies of the native library (expected one, from lib/): %s"
                     % (pid, len(libs), libs))
        print("ok  (b) native library mapped once per TaskManager JVM (sql bundle in lib/): %s"
              % {p: sorted(l) for p, l in maps.items()})
    finally:
        for j in jobs:
            try:
                http("PATCH", "%s/jobs/%s?mode=cancel" % (REST, j))
            except Exception as e:  # noqa: BLE001 - best effort on the way out
                print("cancel %s: %s" % (j, e), file=sys.stderr)
        try:
            http("DELETE", "%s/v1/sessions/%s" % (GATEWAY, session))
        except Exception:  # noqa: BLE001
            pass

    # (c) json-native with the filesystem connector only: a file of the input rows, read and
    # written by json and by json-native, batch mode, through the SQL client.
    fs_in = os.path.join(WORK, "fs-in")
    os.makedirs(fs_in)
    with open(os.path.join(fs_in, "rows.json"), "wb") as f:
        f.write(b"\n".join(stock) + b"\n")
    statements = ["SET 'execution.runtime-mode' = 'batch';"]
    for fmt in ("json", "json-native"):
        t = fmt.replace("-", "_")
        statements += [
            fs_table("s_" + t, fmt, fs_in),
            fs_table("t_" + t, fmt, os.path.join(WORK, "fs-out-" + fmt)),
            "INSERT INTO t_%s SELECT * FROM s_%s;" % (t, t),
        ]
    sql_client("filesystem", statements)

    def read_dir(d):
        lines = []
        for root, _, files in os.walk(d):
            for name in sorted(files):
                if not name.startswith("."):
                    with open(os.path.join(root, name), "rb") as f:
                        lines.extend(f.read().splitlines())
        return lines

    assert_same("(c) filesystem: json-native vs json", read_dir(os.path.join(WORK, "fs-out-json")),
                read_dir(os.path.join(WORK, "fs-out-json-native")))
    if read_dir(os.path.join(WORK, "fs-out-json")) != stock:
        fail("(c) the filesystem json job did not write back its input")
    if "--long" in sys.argv:
        taskmanager_crash()
        savepoint_switch()
    print("cluster tests passed")


def wait_job(job, states, timeout=180):
    deadline = time.time() + timeout
    while True:
        st = http("GET", "%s/jobs/%s" % (REST, job))["state"]
        if st in states:
            return st
        if time.time() > deadline or st in ("FAILED", "CANCELED"):
            fail("job %s is %s, waited for %s" % (job, st, states))
        time.sleep(1)


def topic_count(name):
    out = subprocess.run(
        [KAFKA_SH, "run-class", "org.apache.kafka.tools.GetOffsetShell", "--bootstrap-server", BOOTSTRAP,
         "--topic", name], capture_output=True, text=True, timeout=120)
    return sum(int(line.rsplit(":", 1)[1]) for line in out.stdout.split() if line.count(":") >= 2)


def wait_count(name, count, timeout=180):
    deadline = time.time() + timeout
    while True:
        n = topic_count(name)
        if n >= count:
            return n
        if time.time() > deadline:
            fail("topic %s holds %d records after %ds, %d expected" % (name, n, timeout, count))
        time.sleep(2)


def stop_with_savepoint(job):
    target = os.path.join(WORK, "savepoints")
    trig = http("POST", "%s/jobs/%s/stop" % (REST, job), {"targetDirectory": target, "drain": False})["request-id"]
    deadline = time.time() + 180
    while time.time() < deadline:
        res = http("GET", "%s/jobs/%s/savepoints/%s" % (REST, job, trig))
        if res["status"]["id"] == "COMPLETED":
            op = res["operation"]
            if "failure-cause" in op:
                fail("stop-with-savepoint of %s: %s" % (job, json.dumps(op)[:3000]))
            wait_job(job, ("FINISHED", "CANCELED"))
            return op["location"]
        time.sleep(1)
    fail("stop-with-savepoint of %s did not complete" % job)


def dump_committed(name):
    """Every committed value of a topic (read_committed), until 15 s without a new record."""
    out = subprocess.run(
        [KAFKA_SH, "run-class", "org.apache.kafka.tools.consumer.ConsoleConsumer",
         "--bootstrap-server", BOOTSTRAP, "--topic", name, "--from-beginning",
         "--consumer-property", "isolation.level=read_committed", "--timeout-ms", "15000"],
        capture_output=True, timeout=300)
    lines = out.stdout.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def job_taskmanagers(job):
    tms = set()
    for v in http("GET", "%s/jobs/%s" % (REST, job))["vertices"]:
        for tm in http("GET", "%s/jobs/%s/vertices/%s/taskmanagers" % (REST, job, v["id"]))["taskmanagers"]:
            tms.add(tm["taskmanager-id"])
    return tms


def taskmanager_crash():
    """(d) SIGKILL the TaskManager of an exactly-once job mid-input; committed output == input."""
    src = topic("cl-d-in-" + RUN)
    out = topic("cl-d-out-" + RUN)
    session = http("POST", GATEWAY + "/v1/sessions", {"sessionName": "cluster-test-d"})["sessionHandle"]
    try:
        gateway_statement(session, "SET 'execution.checkpointing.interval' = '2 s'")
        gateway_statement(session, gen_table("gen_d1", ROWS, 1).rstrip(";"))
        gateway_statement(session, kafka_table("in_d", "kafka", "json", src, False).rstrip(";"))
        wait_job(job_id_of(gateway_statement(session, "INSERT INTO in_d SELECT * FROM gen_d1")), ("FINISHED",))
        sink = kafka_table("t_d", "kafka-native", "json-native", out, False).rstrip(";")[:-1] + (
            ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'cl-d-%s', "
            "'properties.transaction.timeout.ms' = '60000')" % RUN)
        gateway_statement(session, kafka_table("s_d", "kafka-native", "json-native", src, False).rstrip(";"))
        gateway_statement(session, sink)
        job = job_id_of(gateway_statement(session, "INSERT INTO t_d SELECT * FROM s_d"))
        wait_job(job, ("RUNNING",))
        deadline = time.time() + 180
        while len(dump_committed(out)) < ROWS:
            if time.time() > deadline:
                fail("(d) the first %d rows were not committed" % ROWS)
        # More input at a bounded rate, and the job's TaskManager killed while it arrives.
        gateway_statement(session, gen_table("gen_d2", 4 * ROWS, ROWS + 1).rstrip(";")[:-1]
                          + ", 'rows-per-second' = '%d')" % (ROWS // 2))
        gen = job_id_of(gateway_statement(session, "INSERT INTO in_d SELECT * FROM gen_d2"))
        wait_job(gen, ("RUNNING",))
        time.sleep(3)
        victims = job_taskmanagers(job)
        if len(victims) != 1:
            fail("(d) the job runs on %s, expected one TaskManager" % victims)
        victim = victims.pop()
        subprocess.run([CLUSTER_SH, "kill-tm", victim.rsplit("-", 1)[1]], check=True)
        print("ok  (d) killed %s (SIGKILL) while input arrived" % victim)
        subprocess.run([CLUSTER_SH, "start-tm", victim.rsplit("-", 1)[1]], check=True)
        wait_job(gen, ("FINISHED",), timeout=300)
        expected = dump_committed(src)
        deadline = time.time() + 300
        while True:
            got = dump_committed(out)
            if len(got) >= len(expected) or time.time() > deadline:
                break
        metric = http("GET", "%s/jobs/%s/metrics?get=numRestarts" % (REST, job))
        restarts = int(metric[0]["value"]) if metric else 0
        http("PATCH", "%s/jobs/%s?mode=cancel" % (REST, job))
        if restarts < 1:
            fail("(d) the job did not restart after its TaskManager was killed (numRestarts %d)" % restarts)
        print("ok  (d) the job restarted %d time(s) from its last checkpoint" % restarts)
    finally:
        try:
            http("DELETE", "%s/v1/sessions/%s" % (GATEWAY, session))
        except Exception:  # noqa: BLE001
            pass
    if got != expected:
        fail("(d) committed output (%d records) is not the input (%d records)" % (len(got), len(expected)))
    print("ok  (d) committed output after the crash: the %d input records, none lost, none twice" % len(got))


def savepoint_switch():
    """(e) kafka + json -> savepoint -> kafka-native + json-native -> savepoint -> kafka + json."""
    src = topic("cl-e-in-" + RUN)
    out = topic("cl-e-out-" + RUN)
    session = http("POST", GATEWAY + "/v1/sessions", {"sessionName": "cluster-test-e"})["sessionHandle"]
    phases = [("kafka", "json"), ("kafka-native", "json-native"), ("kafka", "json")]
    savepoint = None
    try:
        # SQL jobs get operator ids from a counter unless told otherwise: name every operator by
        # its plan node type and transformation, so the resumed job's operators match the state.
        gateway_statement(session, "SET 'table.exec.uid.generation' = 'ALWAYS'")
        gateway_statement(session, "SET 'table.exec.uid.format' = '<type>_<transformation>'")
        for i, (connector, fmt) in enumerate(phases):
            # New input for this phase (a bounded datagen job), then the pass-through job.
            gateway_statement(session, gen_table("gen_e%d" % i, ROWS, 1 + i * ROWS).rstrip(";"))
            gateway_statement(session, kafka_table("in_e%d" % i, "kafka", "json", src, False).rstrip(";"))
            wait_job(job_id_of(gateway_statement(session, "INSERT INTO in_e%d SELECT * FROM gen_e%d" % (i, i))),
                     ("FINISHED",))
            gateway_statement(session, kafka_table("s_e%d" % i, connector, fmt, src, False).rstrip(";"))
            gateway_statement(session, kafka_table("t_e%d" % i, connector, fmt, out, False).rstrip(";"))
            if savepoint:
                gateway_statement(session, "SET 'execution.state-recovery.path' = '%s'" % savepoint)
            job = job_id_of(gateway_statement(session, "INSERT INTO t_e%d SELECT * FROM s_e%d" % (i, i)))
            if savepoint:
                gateway_statement(session, "RESET 'execution.state-recovery.path'")
            wait_job(job, ("RUNNING",))
            wait_count(out, (i + 1) * ROWS)
            savepoint = stop_with_savepoint(job)
            print("ok  (e) phase %d: %s + %s, stopped with savepoint %s" % (i + 1, connector, fmt, savepoint))
    finally:
        try:
            http("DELETE", "%s/v1/sessions/%s" % (GATEWAY, session))
        except Exception:  # noqa: BLE001
            pass
    expected = dump_topic(src, 3 * ROWS)
    got = dump_topic(out, 3 * ROWS)
    if topic_count(out) != 3 * ROWS:
        fail("(e) output holds %d records, %d expected (duplicates)" % (topic_count(out), 3 * ROWS))
    if got != expected:
        diff = next(i for i, (a, b) in enumerate(zip(expected, got)) if a != b)
        fail("(e) output differs from the input at %d:\ninput:  %r\noutput: %r" % (diff, expected[diff], got[diff]))
    print("ok  (e) kafka -> kafka-native -> kafka across savepoints: %d records, none lost, none twice" % len(got))


if __name__ == "__main__":
    main()
