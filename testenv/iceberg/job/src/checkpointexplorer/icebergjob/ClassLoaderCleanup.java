package checkpointexplorer.icebergjob;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the job's class loader be collected when the job ends, so a long-lived session cluster
 * does not run out of metaspace after a few Iceberg jobs (each loads Iceberg and Hadoop anew, ~27
 * MB of metaspace, in its own class loader).
 *
 * <p>Without it, every job leaves behind, on the TaskManager and (for the submission's main) on the
 * JobManager: Iceberg's static worker pools (threads "iceberg-worker-pool-N" and a JVM shutdown
 * hook each, from Guava's exiting executor), Hadoop's ShutdownHookManager JVM hook and Hadoop's
 * "StatisticsDataReferenceCleaner" thread. All of them hold the class loader forever.
 *
 * <p>{@link #release} stops those threads and removes those hooks. The TaskManager calls it as the
 * class loader's release hook (registered by the source), the JobManager at the end of main.
 * Removing JVM shutdown hooks needs java.base/java.lang opened to unnamed modules, which Flink's
 * default env.java.opts.all does (--add-opens=java.base/java.lang=ALL-UNNAMED).
 */
final class ClassLoaderCleanup {

    private static final Logger LOG = LoggerFactory.getLogger(ClassLoaderCleanup.class);

    private ClassLoaderCleanup() {}

    /**
     * Releases what pins {@code cl} (the job's class loader as handed to tasks and main: on Flink a
     * SafetyNetWrapperClassLoader around the ChildFirstClassLoader that defines the job's classes;
     * both count as ours).
     */
    static void release(ClassLoader cl) {
        ClassLoader defining = ClassLoaderCleanup.class.getClassLoader();
        if (!(defining instanceof org.apache.flink.util.FlinkUserCodeClassLoader)) {
            // Not loaded as a Flink job (e.g. main run with everything on the class path): the
            // hooks and threads of the application class loader are not ours to remove.
            return;
        }
        int pools = 0, hooks = 0, threads = 0;
        // Iceberg's static pools (creates them if ThreadPools was never used: cheap, and undone below).
        try {
            for (ExecutorService pool :
                    new ExecutorService[] {
                        org.apache.iceberg.util.ThreadPools.getWorkerPool(),
                        org.apache.iceberg.util.ThreadPools.getDeleteWorkerPool()
                    }) {
                pool.shutdownNow();
                pools++;
            }
        } catch (Throwable t) {
            LOG.warn("ClassLoaderCleanup: shutting down Iceberg's worker pools failed", t);
        }
        // JVM shutdown hooks that belong to this class loader (Guava's DelayedShutdownHook threads
        // inherit it as context class loader; Hadoop's ShutdownHookManager hook is one of its classes).
        try {
            Class<?> c = Class.forName("java.lang.ApplicationShutdownHooks");
            Field f = c.getDeclaredField("hooks");
            f.setAccessible(true);
            List<Thread> ours = new ArrayList<>();
            synchronized (c) {
                Map<?, ?> m = (Map<?, ?>) f.get(null);
                if (m != null) {
                    for (Object k : m.keySet()) {
                        Thread h = (Thread) k;
                        if (ours(h.getClass().getClassLoader(), cl, defining)
                                || ours(h.getContextClassLoader(), cl, defining)) {
                            ours.add(h);
                        }
                    }
                }
            }
            for (Thread h : ours) {
                if (Runtime.getRuntime().removeShutdownHook(h)) {
                    hooks++;
                }
            }
        } catch (Throwable t) {
            LOG.warn(
                    "ClassLoaderCleanup: removing JVM shutdown hooks failed (is java.base/java.lang opened?)",
                    t);
        }
        // Threads running one of our Runnables (Hadoop's FileSystem.Statistics cleaner, which stops
        // when interrupted; it inherits whatever context class loader its creator had), and any
        // other live thread that keeps the class loader as its context class loader.
        Field target = null;
        try {
            target = Thread.class.getDeclaredField("target");
            target.setAccessible(true);
        } catch (Throwable t) {
            LOG.warn("ClassLoaderCleanup: cannot read Thread.target (is java.base/java.lang opened?)", t);
        }
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t == Thread.currentThread()) {
                continue;
            }
            Object r = null;
            try {
                r = target == null ? null : target.get(t);
            } catch (Throwable e) {
                // leave it
            }
            if (r != null && ours(r.getClass().getClassLoader(), cl, defining)) {
                LOG.info("ClassLoaderCleanup: interrupting thread {} ({})", t.getName(), r.getClass().getName());
                t.interrupt();
                threads++;
            }
            if (ours(t.getContextClassLoader(), cl, defining)) {
                t.setContextClassLoader(defining.getParent());
            }
        }
        LOG.info(
                "ClassLoaderCleanup: shut down {} Iceberg pools, removed {} shutdown hooks, interrupted {} threads",
                pools,
                hooks,
                threads);
    }

    private static boolean ours(ClassLoader l, ClassLoader cl, ClassLoader defining) {
        return l != null && (l == cl || l == defining);
    }
}
