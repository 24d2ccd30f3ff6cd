package org.mcrawl.esnode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.PluginsLoader;

/**
 * One single-node Elasticsearch in this JVM, built from the Maven Central jars, for tests and
 * development. Usage: EsNode HOME MODULES_DIR HTTP_PORT TRANSPORT_PORT [key=value ...]
 *
 * The distribution's launcher (server-cli) cannot be used: it is not on Maven Central. This class
 * does what its bootstrap does that matters on loopback: settings, logging, module loading, start,
 * and a clean close on SIGTERM so the data directory stays consistent.
 */
public final class EsNode {

    private EsNode() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: EsNode HOME MODULES_DIR HTTP_PORT TRANSPORT_PORT [key=value ...]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        Path modules = Path.of(args[1]).toAbsolutePath();
        Path config = home.resolve("config");
        Path plugins = home.resolve("plugins");
        Files.createDirectories(config);
        Files.createDirectories(plugins);

        Settings.Builder builder = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("cluster.name", "mcrawl-test")
            .put("node.name", "mcrawl-es")
            .put("network.host", "127.0.0.1")
            .put("http.port", args[2])
            .put("transport.port", args[3])
            .put("discovery.type", "single-node")
            // A test machine's disk may be fuller than production watermarks allow; never go read-only.
            .put("cluster.routing.allocation.disk.threshold_enabled", false);
        for (int i = 4; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                System.err.println("setting must be key=value: " + args[i]);
                System.exit(2);
            }
            builder.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Settings settings = builder.build();

        LogConfigurator.configureWithoutConfig(settings);
        Environment environment = new Environment(settings, config);
        // withServerExports=false: the server runs from the class path (unnamed module), so there
        // are no module exports to wire into plugin layers (the test framework's nodes do the same).
        PluginsLoader loader = PluginsLoader.createPluginsLoader(
            PluginsLoader.loadModulesBundles(modules), PluginsLoader.loadPluginsBundles(plugins), Map.of(), false);
        Node node = new Node(environment, loader);

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "mcrawl-es-shutdown"));
        node.start();
        System.out.println("mcrawl-es: started, http 127.0.0.1:" + args[2]);
        stopped.await();
    }
}
