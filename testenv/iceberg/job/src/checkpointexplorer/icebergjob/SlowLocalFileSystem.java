package checkpointexplorer.icebergjob;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hadoop's LocalFileSystem (file://) as a slow metadata store: creating or renaming a file whose
 * parent directory is named "metadata" (an Iceberg table's metadata/: manifests, manifest lists,
 * vN.metadata.json, version-hint.text) first sleeps {@value #DELAY_KEY} ms. Data files are not
 * delayed.
 *
 * <p>An Iceberg append commit through the Hadoop catalog creates a manifest, a manifest list and a
 * metadata file and renames the metadata file into place, then rewrites version-hint.text
 * (create + rename): about six delays per commit, all inside the committer's timed
 * {@code operation.commit()}. The committer's snapshotState writes one manifest there as well,
 * so its checkpoint sync phase grows by one delay.
 *
 * <p>IcebergJob installs it as {@code fs.file.impl} in its own Hadoop Configuration; Hadoop is
 * loaded by the job's class loader, so other jobs are not affected.
 */
public class SlowLocalFileSystem extends LocalFileSystem {

    public static final String DELAY_KEY = "checkpointexplorer.slow-fs.delay-ms";

    private static final Logger LOG = LoggerFactory.getLogger(SlowLocalFileSystem.class);
    private static final AtomicLong DELAYS = new AtomicLong();

    private long delayMs;

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        super.initialize(name, conf);
        delayMs = conf.getLong(DELAY_KEY, 0);
        LOG.info("SlowLocalFileSystem: {} ms per create/rename in metadata/ directories", delayMs);
    }

    private void pause(String op, Path p) throws IOException {
        if (delayMs <= 0 || p == null) {
            return;
        }
        Path parent = p.getParent();
        if (parent == null || !"metadata".equals(parent.getName())) {
            return;
        }
        long n = DELAYS.incrementAndGet();
        if (LOG.isDebugEnabled()) {
            LOG.debug("SlowLocalFileSystem: delaying {} {} by {} ms (#{})", op, p, delayMs, n);
        }
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while delaying " + op + " " + p);
        }
    }

    @Override
    public FSDataOutputStream create(
            Path f,
            FsPermission permission,
            boolean overwrite,
            int bufferSize,
            short replication,
            long blockSize,
            Progressable progress)
            throws IOException {
        pause("create", f);
        return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        pause("rename", dst);
        return super.rename(src, dst);
    }
}
