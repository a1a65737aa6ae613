package checkpointexplorer.icebergjob;

import java.io.Closeable;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.types.Types;

/**
 * A streaming job that appends generated rows to an Apache Iceberg table in a Hadoop catalog on
 * the local disk and commits on every completed checkpoint; its commit behaviour is set by
 * program arguments.
 *
 * <p>Chaining is disabled so every operator is its own JobVertex. With {@code --sink flink} (the
 * default, Iceberg's FlinkSink): "Source: Rows" → "IcebergStreamWriter" → "IcebergFilesCommitter"
 * (parallelism 1, commits in notifyCheckpointComplete) → "IcebergSink ce_hadoop.&lt;table&gt;:
 * Writer" (a discarding sink). With {@code --sink v2} (the Sink V2 IcebergSink): "Source: Rows" →
 * "ce_hadoop.&lt;table&gt;: Writer" → "ce_hadoop.&lt;table&gt;: Sink pre-commit aggregator:
 * ce_hadoop.&lt;table&gt;" → "ce_hadoop.&lt;table&gt;: Committer". {@code --uid-prefix P} prefixes
 * FlinkSink's operator names with "P-".
 */
public final class IcebergJob {

    /** Argument names and their defaults; anything else is rejected so typos do not go unnoticed. */
    static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("name", "Iceberg Sink Job");
        DEFAULTS.put("warehouse", ""); // required: a directory (or file:// URI) for the Hadoop catalog
        DEFAULTS.put("table", "ce.events"); // namespace.table in that catalog; created when missing
        DEFAULTS.put("rate", "100"); // records per second over all source subtasks; 0 = unlimited
        DEFAULTS.put("record-bytes", "64"); // length of the payload column
        DEFAULTS.put("parallelism", "1");
        DEFAULTS.put("writer-parallelism", "0"); // 0 = --parallelism
        DEFAULTS.put("files-per-commit", "1"); // >1: table partitioned into N buckets, N files per writer per commit
        DEFAULTS.put("commit-delay-ms", "0"); // sleep per create/rename of a file in the table's metadata/ dir
        DEFAULTS.put("format", "parquet"); // parquet | avro (orc would need hadoop-hdfs-client)
        DEFAULTS.put("sink", "flink"); // flink (FlinkSink) | v2 (Sink V2 IcebergSink)
        DEFAULTS.put("uid-prefix", ""); // FlinkSink uidPrefix / IcebergSink uidSuffix; also prefixes operator names
        DEFAULTS.put("interval-ms", "1000");
        DEFAULTS.put("checkpoint-timeout-ms", "600000");
        DEFAULTS.put("min-pause-ms", "0");
        DEFAULTS.put("tolerable-failures", "1000000");
    }

    public static void main(String[] argv) throws Exception {
        try {
            run(argv);
        } finally {
            // Submitted over REST, main runs in the JobManager (and returns once the job is
            // submitted): what Hadoop and Iceberg started for ensureTable must not pin its class
            // loader after the submission.
            ClassLoaderCleanup.release(Thread.currentThread().getContextClassLoader());
        }
    }

    static void run(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        int parallelism = Integer.parseInt(args.get("parallelism"));
        int writerParallelism = Integer.parseInt(args.get("writer-parallelism"));
        if (writerParallelism <= 0) {
            writerParallelism = parallelism;
        }
        long rate = Long.parseLong(args.get("rate"));
        int buckets = Integer.parseInt(args.get("files-per-commit"));
        if (buckets < 1) {
            throw new IllegalArgumentException("--files-per-commit must be >= 1");
        }
        long commitDelayMs = Long.parseLong(args.get("commit-delay-ms"));
        String warehouse = warehouseUri(args.get("warehouse"));
        String sink = args.get("sink");
        String uidPrefix = args.get("uid-prefix");
        String format = args.get("format");
        if (!format.equals("parquet") && !format.equals("avro")) {
            // ORC would also need hadoop-hdfs-client (see pom.xml).
            throw new IllegalArgumentException("--format must be parquet or avro, not " + format);
        }
        if (!sink.equals("flink") && !sink.equals("v2")) {
            throw new IllegalArgumentException("--sink must be flink or v2, not " + sink);
        }

        Configuration hadoopConf = new Configuration();
        if (commitDelayMs > 0) {
            // Every file:// access of this job's Hadoop (this job's class loader only) goes through
            // SlowLocalFileSystem, which sleeps on creating and renaming files in metadata/ dirs.
            hadoopConf.set("fs.file.impl", SlowLocalFileSystem.class.getName());
            hadoopConf.setLong(SlowLocalFileSystem.DELAY_KEY, commitDelayMs);
        }
        Map<String, String> catalogProps = new HashMap<>();
        catalogProps.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
        CatalogLoader catalogLoader = CatalogLoader.hadoop("ce_hadoop", hadoopConf, catalogProps);
        TableIdentifier tableId = TableIdentifier.parse(args.get("table"));
        if (tableId.namespace().isEmpty()) {
            throw new IllegalArgumentException("--table must be NAMESPACE.NAME, not " + args.get("table"));
        }
        Schema schema = ensureTable(catalogLoader, tableId, buckets, format);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.disableOperatorChaining();
        env.enableCheckpointing(Long.parseLong(args.get("interval-ms")), CheckpointingMode.EXACTLY_ONCE);
        CheckpointConfig cc = env.getCheckpointConfig();
        cc.setCheckpointTimeout(Long.parseLong(args.get("checkpoint-timeout-ms")));
        cc.setMinPauseBetweenCheckpoints(Long.parseLong(args.get("min-pause-ms")));
        cc.setTolerableCheckpointFailureNumber(Integer.parseInt(args.get("tolerable-failures")));

        RowType rowType = FlinkSchemaUtil.convert(schema);
        DataGeneratorSource<RowData> source =
                new DataGeneratorSource<>(
                        new Rows(buckets, Integer.parseInt(args.get("record-bytes"))),
                        Long.MAX_VALUE,
                        rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(),
                        InternalTypeInfo.of(rowType));
        DataStream<RowData> rows =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "Rows").uid("rows");

        TableLoader tableLoader = TableLoader.fromCatalog(catalogLoader, tableId);
        if (sink.equals("flink")) {
            FlinkSink.forRowData(rows)
                    .tableLoader(tableLoader)
                    .writeParallelism(writerParallelism)
                    .distributionMode(DistributionMode.NONE)
                    .uidPrefix(uidPrefix.isEmpty() ? null : uidPrefix)
                    .append();
        } else {
            IcebergSink.Builder b =
                    IcebergSink.forRowData(rows)
                            .tableLoader(tableLoader)
                            .writeParallelism(writerParallelism)
                            .distributionMode(DistributionMode.NONE);
            if (!uidPrefix.isEmpty()) {
                b.uidSuffix(uidPrefix);
            }
            b.append();
        }
        env.execute(args.get("name"));
    }

    /**
     * Creates the table when missing: id, part (the bucket, an identity partition when
     * files-per-commit > 1), ts_ms, payload.
     */
    static Schema ensureTable(CatalogLoader loader, TableIdentifier id, int buckets, String format)
            throws Exception {
        Catalog catalog = loader.loadCatalog();
        try {
            if (catalog.tableExists(id)) {
                return catalog.loadTable(id).schema();
            }
            if (catalog instanceof SupportsNamespaces && id.namespace().levels().length > 0) {
                SupportsNamespaces ns = (SupportsNamespaces) catalog;
                Namespace namespace = id.namespace();
                if (!ns.namespaceExists(namespace)) {
                    try {
                        ns.createNamespace(namespace);
                    } catch (AlreadyExistsException e) {
                        // another job created it meanwhile
                    }
                }
            }
            Schema schema =
                    new Schema(
                            Types.NestedField.required(1, "id", Types.LongType.get()),
                            Types.NestedField.required(2, "part", Types.IntegerType.get()),
                            Types.NestedField.required(3, "ts_ms", Types.LongType.get()),
                            Types.NestedField.optional(4, "payload", Types.StringType.get()));
            PartitionSpec spec =
                    buckets > 1
                            ? PartitionSpec.builderFor(schema).identity("part").build()
                            : PartitionSpec.unpartitioned();
            Map<String, String> props = new HashMap<>();
            props.put(TableProperties.DEFAULT_FILE_FORMAT, format);
            props.put(TableProperties.FORMAT_VERSION, "2");
            try {
                Table t = catalog.createTable(id, schema, spec, props);
                return t.schema();
            } catch (AlreadyExistsException e) {
                return catalog.loadTable(id).schema();
            }
        } finally {
            if (catalog instanceof Closeable) {
                ((Closeable) catalog).close();
            }
        }
    }

    /** A plain path becomes an absolute file:// URI; a URI is kept. */
    static String warehouseUri(String w) {
        if (w.isEmpty()) {
            throw new IllegalArgumentException("--warehouse PATH is required");
        }
        if (w.contains("://")) {
            return w;
        }
        return new File(w).getAbsoluteFile().toURI().toString();
    }

    static Map<String, String> parse(String[] argv) {
        Map<String, String> args = new HashMap<>(DEFAULTS);
        List<String> unknown = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--") || !DEFAULTS.containsKey(a.substring(2))) {
                unknown.add(a);
                continue;
            }
            if (i + 1 >= argv.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            args.put(a.substring(2), argv[++i]);
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown arguments " + unknown + "; known: --" + String.join(" --", DEFAULTS.keySet()));
        }
        return args;
    }

    /**
     * Rows of (id, id % buckets, now, payload). Its open registers {@link ClassLoaderCleanup} as the
     * release hook of the job's class loader on the TaskManager.
     */
    static final class Rows implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int buckets;
        private final int payloadBytes;
        private transient StringData payload;

        Rows(int buckets, int payloadBytes) {
            this.buckets = buckets;
            this.payloadBytes = payloadBytes;
        }

        @Override
        public void open(SourceReaderContext readerContext) {
            UserCodeClassLoader ucl = readerContext.getUserCodeClassLoader();
            ClassLoader cl = ucl.asClassLoader();
            ucl.registerReleaseHookIfAbsent(
                    "checkpointexplorer-iceberg-cleanup", () -> ClassLoaderCleanup.release(cl));
        }

        @Override
        public RowData map(Long id) {
            if (payload == null) {
                StringBuilder sb = new StringBuilder(payloadBytes);
                for (int i = 0; i < payloadBytes; i++) {
                    sb.append((char) ('a' + i % 26));
                }
                payload = StringData.fromString(sb.toString());
            }
            return GenericRowData.of(id, (int) (id % buckets), System.currentTimeMillis(), payload);
        }
    }
}
