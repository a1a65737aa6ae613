package org.apache.flink.metrics.prometheus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Properties;

import io.prometheus.client.exporter.HTTPServer;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.NetUtils;

/**
 * The stock PrometheusReporter listens on every interface and has no host option. The test
 * environment must only listen on loopback, so this factory builds the same reporter (same
 * AbstractPrometheusReporter, same metric names and labels) bound to {@code host} (default
 * 127.0.0.1). It lives in Flink's package to reach the package-private registry.
 *
 * <p>Configure with {@code metrics.reporter.prom.factory.class:
 * org.apache.flink.metrics.prometheus.LoopbackPrometheusReporterFactory} and {@code
 * metrics.reporter.prom.port}.
 */
public class LoopbackPrometheusReporterFactory implements MetricReporterFactory {

    @Override
    public MetricReporter createMetricReporter(Properties props) {
        String host = props.getProperty("host", "127.0.0.1");
        return new LoopbackPrometheusReporter(host, props.getProperty("port", "9249"));
    }

    /** AbstractPrometheusReporter served by an HTTPServer bound to one address. */
    static final class LoopbackPrometheusReporter extends AbstractPrometheusReporter {
        private final HTTPServer httpServer;

        // The ports as a string ("9249", "9249-9260"): NetUtils parses them in Flink 1.20 and 2.x
        // alike (2.x's PortRange does not exist in 1.x).
        LoopbackPrometheusReporter(String host, String ports) {
            HTTPServer server = null;
            Iterator<Integer> it = NetUtils.getPortRangeFromString(ports);
            while (it.hasNext() && server == null) {
                int port = it.next();
                try {
                    server = new HTTPServer(new InetSocketAddress(host, port), registry, true);
                    log.info("Started LoopbackPrometheusReporter HTTP server on {}:{}.", host, port);
                } catch (IOException e) {
                    log.debug("Could not start LoopbackPrometheusReporter on {}:{}.", host, port, e);
                }
            }
            if (server == null) {
                throw new RuntimeException(
                        "Could not start LoopbackPrometheusReporter HTTP server on " + host + " ports " + ports);
            }
            httpServer = server;
        }

        @Override
        public void close() {
            httpServer.stop();
            super.close();
        }
    }
}
