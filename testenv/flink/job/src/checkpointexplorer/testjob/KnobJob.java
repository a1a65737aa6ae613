package checkpointexplorer.testjob;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A streaming job whose checkpoint behaviour is set by program arguments, so tests can make
 * Flink produce slow, failed, expired, growing and backpressured checkpoints on demand.
 *
 * <p>Chaining is disabled so every operator is its own JobVertex, findable by name:
 * "Source: Numbers" → "Slow Map" → "Stateful Counter" → "Slow Snapshot" → "Snapshot Thrower" →
 * "Sink: Discard".
 */
public final class KnobJob {

    /** Argument names and their defaults; anything else is rejected so typos do not go unnoticed. */
    static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("name", "Checkpoint Knob Job");
        DEFAULTS.put("rate", "100"); // records per second over all source subtasks; 0 = unlimited
        DEFAULTS.put("record-bytes", "1024"); // padding per record, so buffers fill like a real job's
        DEFAULTS.put("sleep-ms", "0"); // sleep per record in "Slow Map"
        // The edge into "Slow Map": forward (pointwise), which Flink keeps aligned even with unaligned
        // checkpoints on, or rebalance (all-to-all), where unaligned barriers overtake the queue.
        DEFAULTS.put("slow-map-input", "forward");
        DEFAULTS.put("state-bytes-per-record", "0"); // keyed state added per record in "Stateful Counter"
        DEFAULTS.put("state-max-bytes", "33554432"); // per subtask cap so the TaskManager heap survives
        DEFAULTS.put("state-incompressible", "false"); // pseudo-random payload: snapshots cannot compress it
        DEFAULTS.put("slow-snapshot-ms", "0"); // sleep in snapshotState of "Slow Snapshot" (sync phase)
        DEFAULTS.put("slow-snapshot-every", "1"); // ... only in every Nth checkpoint (the others are quick)
        DEFAULTS.put("slow-snapshot-spread", "false"); // subtask i of p sleeps slow-snapshot-ms × (i+1)/p
        DEFAULTS.put("fail-every", "0"); // "Snapshot Thrower" declines every Nth checkpoint (async failure)
        DEFAULTS.put("fail-task-every", "0"); // "Snapshot Thrower" fails its task on every Nth checkpoint
        DEFAULTS.put("interval-ms", "1000");
        DEFAULTS.put("checkpoint-timeout-ms", "600000");
        DEFAULTS.put("min-pause-ms", "0");
        DEFAULTS.put("max-concurrent", "1");
        DEFAULTS.put("tolerable-failures", "1000000");
        DEFAULTS.put("parallelism", "1");
        DEFAULTS.put("state-backend", "hashmap"); // hashmap | rocksdb
        DEFAULTS.put("incremental", "false");
        // false: RocksDB's memtables outside Flink's managed memory (its own 64 MB defaults). The
        // test cluster's few MB per slot make 1.20's RocksDB flush and compact all the time.
        DEFAULTS.put("rocksdb-managed-memory", "true");
        DEFAULTS.put("unaligned", "false");
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        int parallelism = Integer.parseInt(args.get("parallelism"));
        long rate = Long.parseLong(args.get("rate"));

        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, args.get("state-backend"));
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, Boolean.parseBoolean(args.get("incremental")));
        if (!Boolean.parseBoolean(args.get("rocksdb-managed-memory"))) {
            // By key: the option's class moved between 1.x and 2.x.
            conf.set(ConfigOptions.key("state.backend.rocksdb.memory.managed").booleanType().noDefaultValue(), false);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.disableOperatorChaining();

        // Exactly once is the default mode. Not named: its enum moved to org.apache.flink.core.execution
        // in 1.20, and 1.19 has only the old org.apache.flink.streaming.api.CheckpointingMode.
        env.enableCheckpointing(Long.parseLong(args.get("interval-ms")));
        CheckpointConfig cc = env.getCheckpointConfig();
        cc.setCheckpointTimeout(Long.parseLong(args.get("checkpoint-timeout-ms")));
        cc.setMinPauseBetweenCheckpoints(Long.parseLong(args.get("min-pause-ms")));
        cc.setMaxConcurrentCheckpoints(Integer.parseInt(args.get("max-concurrent")));
        cc.setTolerableCheckpointFailureNumber(Integer.parseInt(args.get("tolerable-failures")));
        if (Boolean.parseBoolean(args.get("unaligned"))) {
            cc.enableUnalignedCheckpoints();
        }

        // Paced in the generator, not with DataGeneratorSource's rate limiter: waiting on the
        // limiter counts as idle and hides the source's backpressure from Flink's metrics.
        DataGeneratorSource<Rec> source =
                new DataGeneratorSource<>(
                        new PacedNumbers(rate, Integer.parseInt(args.get("record-bytes"))),
                        Long.MAX_VALUE,
                        RateLimiterStrategy.noOp(),
                        TypeInformation.of(Rec.class));

        DataStream<Rec> numbers =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "Numbers").uid("numbers");
        DataStream<Rec> slowInput;
        switch (args.get("slow-map-input")) {
            case "forward":
                slowInput = numbers;
                break;
            case "rebalance":
                slowInput = numbers.rebalance();
                break;
            default:
                throw new IllegalArgumentException(
                        "--slow-map-input " + args.get("slow-map-input") + ": want forward or rebalance");
        }
        DataStream<Rec> slowed =
                slowInput.map(new SlowMap(Long.parseLong(args.get("sleep-ms"))))
                        .name("Slow Map")
                        .uid("slow-map");
        DataStream<Rec> counted =
                slowed.keyBy(r -> r.id % 128, Types.LONG)
                        .map(
                                new StatefulCounter(
                                        Integer.parseInt(args.get("state-bytes-per-record")),
                                        Long.parseLong(args.get("state-max-bytes")),
                                        Boolean.parseBoolean(args.get("state-incompressible"))))
                        .name("Stateful Counter")
                        .uid("stateful-counter");
        DataStream<Rec> snapshotted =
                counted.map(
                                new SlowSnapshot(
                                        Long.parseLong(args.get("slow-snapshot-ms")),
                                        Long.parseLong(args.get("slow-snapshot-every")),
                                        Boolean.parseBoolean(args.get("slow-snapshot-spread"))))
                        .name("Slow Snapshot")
                        .uid("slow-snapshot");
        DataStream<Rec> thrown =
                snapshotted
                        .map(new SnapshotThrower(
                                        Long.parseLong(args.get("fail-every")),
                                        Long.parseLong(args.get("fail-task-every"))))
                        .name("Snapshot Thrower")
                        .uid("snapshot-thrower");
        // The legacy sink gives the vertex the plain name "Sink: Discard" (a Sink V2 one is "Discard: Writer").
        addDiscardingSink(thrown).name("Discard").uid("discard");

        env.execute(args.get("name"));
    }

    /**
     * Adds the legacy DiscardingSink. Flink 2.0 moved it and SinkFunction (the type of addSink's
     * parameter) into a ".legacy" package, so one source compiled against 1.20 and 2.x finds both
     * by name.
     */
    static DataStreamSink<?> addDiscardingSink(DataStream<Rec> in) throws ReflectiveOperationException {
        Object sink = null;
        for (String name :
                new String[] {
                    "org.apache.flink.streaming.api.functions.sink.legacy.DiscardingSink", // 2.x
                    "org.apache.flink.streaming.api.functions.sink.DiscardingSink", // 1.x
                }) {
            try {
                sink = Class.forName(name).getDeclaredConstructor().newInstance();
                break;
            } catch (ClassNotFoundException e) {
                // the other version's name
            }
        }
        if (sink == null) {
            throw new ClassNotFoundException("no legacy DiscardingSink in this Flink");
        }
        for (Method m : DataStream.class.getMethods()) {
            if (m.getName().equals("addSink")
                    && m.getParameterCount() == 1
                    && m.getParameterTypes()[0].isInstance(sink)) {
                return (DataStreamSink<?>) m.invoke(in, sink);
            }
        }
        throw new NoSuchMethodException("DataStream.addSink(" + sink.getClass().getName() + ")");
    }

    static Map<String, String> parse(String[] argv) {
        Map<String, String> out = new LinkedHashMap<>(DEFAULTS);
        List<String> unknown = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("expected --name value, got " + a);
            }
            String key = a.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (key.equals("unaligned") || key.equals("incremental")) {
                // Flags may stand alone.
                value = (i + 1 < argv.length && !argv[i + 1].startsWith("--")) ? argv[++i] : "true";
            } else if (i + 1 < argv.length) {
                value = argv[++i];
            } else {
                throw new IllegalArgumentException("missing value for --" + key);
            }
            if (!DEFAULTS.containsKey(key)) {
                unknown.add(key);
                continue;
            }
            out.put(key, value);
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown arguments " + unknown + "; known: " + DEFAULTS.keySet());
        }
        return out;
    }

    /**
     * A record: a number and a padding that sets its size on the wire. Network buffers are 32 KB;
     * with 8-byte records they hold thousands each, and a slow operator takes minutes to fill
     * them before anyone upstream sees backpressure. Real records are bigger.
     */
    public static final class Rec {
        public long id;
        public byte[] pad;

        public Rec() {}

        Rec(long id, byte[] pad) {
            this.id = id;
            this.pad = pad;
        }
    }

    /**
     * Emits numbers at rate records per second over all subtasks (0 = as fast as possible) by
     * sleeping in the task thread: a throttled source looks busy, and when its output is full
     * Flink measures backpressure, as with a real slow source.
     */
    static final class PacedNumbers implements GeneratorFunction<Long, Rec> {
        private final long rate;
        private final int recordBytes;
        private transient long nanosPerRecord;
        private transient long next;
        private transient byte[] pad;

        PacedNumbers(long rate, int recordBytes) {
            this.rate = rate;
            this.recordBytes = recordBytes;
        }

        @Override
        public void open(SourceReaderContext ctx) {
            if (rate > 0) {
                nanosPerRecord = 1_000_000_000L * Math.max(1, ctx.currentParallelism()) / rate;
            }
            next = System.nanoTime();
            pad = new byte[Math.max(0, recordBytes)];
            for (int i = 0; i < pad.length; i++) {
                pad[i] = (byte) i;
            }
        }

        @Override
        public Rec map(Long i) throws Exception {
            if (nanosPerRecord > 0) {
                next += nanosPerRecord;
                long now = System.nanoTime();
                if (now - next > 1_000_000_000L) {
                    next = now; // fell behind by more than a second (backpressure): do not burst
                } else if (next - now >= 1_000_000L) {
                    Thread.sleep((next - now) / 1_000_000L); // sleep whole ms; shorter waits add up
                }
            }
            return new Rec(i, pad);
        }
    }

    /** Sleeps per record: the operator is slower than its input, so upstream backpressures. */
    static final class SlowMap extends RichMapFunction<Rec, Rec> {
        private final long sleepMs;

        SlowMap(long sleepMs) {
            this.sleepMs = sleepMs;
        }

        @Override
        public Rec map(Rec v) throws Exception {
            if (sleepMs > 0) {
                Thread.sleep(sleepMs);
            }
            return v;
        }
    }

    /**
     * Keeps a count per key and, optionally, a payload that grows with every record. The payload
     * is a repeating pattern, which snapshot compression (RocksDB's SST files) shrinks many times;
     * incompressible makes it pseudo-random, so the checkpointed size is what was added.
     */
    static final class StatefulCounter extends RichMapFunction<Rec, Rec> {
        private final int bytesPerRecord;
        private final long maxBytes;
        private final boolean incompressible;
        private transient ValueState<Long> count;
        private transient ListState<byte[]> payload;
        private transient long added;
        private transient long seed;

        StatefulCounter(int bytesPerRecord, long maxBytes, boolean incompressible) {
            this.bytesPerRecord = bytesPerRecord;
            this.maxBytes = maxBytes;
            this.incompressible = incompressible;
        }

        @Override
        public void open(OpenContext ctx) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            payload =
                    getRuntimeContext()
                            .getListState(
                                    new ListStateDescriptor<>(
                                            "payload", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        }

        @Override
        public Rec map(Rec v) throws Exception {
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            if (bytesPerRecord > 0 && added + bytesPerRecord <= maxBytes) {
                byte[] b = new byte[bytesPerRecord];
                if (incompressible) {
                    // xorshift64: cheap, and nothing a compressor can shrink.
                    long x = seed == 0 ? v.id * 0x9E3779B97F4A7C15L + 1 : seed;
                    for (int i = 0; i < b.length; i++) {
                        x ^= x << 13;
                        x ^= x >>> 7;
                        x ^= x << 17;
                        b[i] = (byte) x;
                    }
                    seed = x;
                } else {
                    // Not all zeroes, so compressed snapshots still grow.
                    for (int i = 0; i < b.length; i++) {
                        b[i] = (byte) (v.id * 31 + i);
                    }
                }
                payload.add(b);
                added += bytesPerRecord;
            }
            return v;
        }
    }

    /**
     * Spends slowSnapshotMs in snapshotState of every checkpoint whose id is a multiple of every:
     * a long synchronous checkpoint phase (every = 1: in all of them; more: a mix of slow and quick
     * checkpoints, e.g. some expiring and the others completing). With spread, subtask i of p
     * sleeps slowSnapshotMs × (i+1)/p, so acknowledgements arrive one after another (a checkpoint
     * still progressing when it expires).
     */
    static final class SlowSnapshot extends RichMapFunction<Rec, Rec> implements CheckpointedFunction {
        private final long slowSnapshotMs;
        private final long every;
        private final boolean spread;

        SlowSnapshot(long slowSnapshotMs, long every, boolean spread) {
            this.slowSnapshotMs = slowSnapshotMs;
            this.every = Math.max(1, every);
            this.spread = spread;
        }

        @Override
        public Rec map(Rec v) {
            return v;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            if (slowSnapshotMs > 0 && ctx.getCheckpointId() % every == 0) {
                long ms = slowSnapshotMs;
                if (spread) {
                    int p = Math.max(1, parallelism());
                    ms = slowSnapshotMs * (subtaskIndex() + 1) / p;
                }
                Thread.sleep(ms);
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) {}

        // RuntimeContext.getTaskInfo() exists in 1.19+ and 2.x (2.0 dropped the older getters).
        private int subtaskIndex() {
            return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        private int parallelism() {
            return getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        }
    }

    /**
     * Makes every Nth checkpoint fail in one of two ways Flink treats differently:
     *
     * <ul>
     *   <li>failEvery: the asynchronous part of the snapshot throws (a poisoned operator-state
     *       element whose serializer refuses to write). The subtask declines the checkpoint, the
     *       checkpoint FAILS with Flink's own message, the job keeps running.
     *   <li>failTaskEvery: snapshotState itself throws (synchronous part). Flink fails the task
     *       and restarts the job under the same job id from the latest completed checkpoint.
     * </ul>
     */
    static final class SnapshotThrower extends RichMapFunction<Rec, Rec> implements CheckpointedFunction {
        private final long failEvery;
        private final long failTaskEvery;
        private transient ListState<Long> marker;

        SnapshotThrower(long failEvery, long failTaskEvery) {
            this.failEvery = failEvery;
            this.failTaskEvery = failTaskEvery;
        }

        @Override
        public Rec map(Rec v) {
            return v;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            long id = ctx.getCheckpointId();
            if (failTaskEvery > 0 && id % failTaskEvery == 0) {
                throw new IllegalStateException(
                        "Snapshot Thrower: injected task failure at checkpoint " + id
                                + " (--fail-task-every " + failTaskEvery + ")");
            }
            marker.clear();
            // A negative marker is written by PoisonSerializer only in the async phase, where it throws.
            marker.add(failEvery > 0 && id % failEvery == 0 ? -id : id);
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) throws Exception {
            marker =
                    ctx.getOperatorStateStore()
                            .getListState(new ListStateDescriptor<>("marker", new PoisonSerializer()));
        }
    }

    /** A long serializer that refuses to write negative values: an async snapshot failure on cue. */
    public static final class PoisonSerializer extends TypeSerializerSingleton<Long> {
        private static final long serialVersionUID = 1L;
        static final PoisonSerializer INSTANCE = new PoisonSerializer();

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public Long createInstance() {
            return 0L;
        }

        @Override
        public Long copy(Long from) {
            return from;
        }

        @Override
        public Long copy(Long from, Long reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return 8;
        }

        @Override
        public void serialize(Long v, DataOutputView out) throws IOException {
            if (v < 0) {
                throw new IOException(
                        "Snapshot Thrower: injected async snapshot failure at checkpoint " + (-v) + " (--fail-every)");
            }
            out.writeLong(v);
        }

        @Override
        public Long deserialize(DataInputView in) throws IOException {
            return in.readLong();
        }

        @Override
        public Long deserialize(Long reuse, DataInputView in) throws IOException {
            return in.readLong();
        }

        @Override
        public void copy(DataInputView in, DataOutputView out) throws IOException {
            out.writeLong(in.readLong());
        }

        @Override
        public TypeSerializerSnapshot<Long> snapshotConfiguration() {
            return new PoisonSerializerSnapshot();
        }

        /** Needed by Flink to restore state written with this serializer. */
        public static final class PoisonSerializerSnapshot extends SimpleTypeSerializerSnapshot<Long> {
            public PoisonSerializerSnapshot() {
                super(() -> INSTANCE);
            }
        }
    }
}
