import io.echomq.emqid.EmqIdException;
import io.echomq.emqid.LeaseTerms;
import io.echomq.emqid.holder.HolderStats;
import io.echomq.emqid.holder.LeaseHolder;
import io.echomq.emqid.holder.Minted;
import io.echomq.emqid.jedis.JedisLease;
import io.echomq.emqid.lettuce.LettuceLease;
import io.lettuce.core.RedisURI;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * A holder of {@code cargo xtask chaos}'s fleet on the JVM (xtask/src/runtimes/valkey/chaos/holder.rs
 * says the contract): holds a lease with {@code JedisLease} or {@code LettuceLease} and mints two
 * ids a millisecond into FILE until its stdin closes, then releases and prints its stats as one
 * JSON line.
 *
 * <pre>
 * java -cp CLASSPATH ChaosHolder --client jedis|lettuce --seeds HOST:PORT[,HOST:PORT...] \
 *     --replicas N --ttl MS --margin MS --out FILE
 * </pre>
 *
 * <p>Each record is 24 bytes, little-endian: the snowflake, the unix ms it was minted at, the
 * ordinal of the lease that minted it, 4 bytes of padding.
 */
public final class ChaosHolder {
    private static final int RECORD = 24;
    private static final int PER_TICK = 2;
    /** A node that does not answer within a second is treated as down: the holder looks elsewhere. */
    private static final int READ_MS = 1_000;
    private static final int CONNECT_MS = 300;

    private static volatile boolean closed;

    private ChaosHolder() {}

    /** A client of the fleet's Valkey, and how to close it. */
    private record Client(Acquire take, Runnable shut) implements AutoCloseable {
        LeaseHolder acquire(int replicas, LeaseTerms terms) {
            return take.acquire(replicas, terms);
        }

        @Override
        public void close() {
            shut.run();
        }
    }

    /** How one client takes a lease. */
    private interface Acquire {
        LeaseHolder acquire(int replicas, LeaseTerms terms);
    }

    /**
     * Lettuce's own logger, quieted to errors: under the fleet's faults its topology refresh
     * logs every node it cannot reach, with a stack trace, and the fleet's verdict says what
     * mattered. Held here, as java.util.logging keeps its loggers only weakly.
     */
    private static final java.util.logging.Logger LETTUCE = java.util.logging.Logger.getLogger("io.lettuce");

    public static void main(String[] argv) throws Exception {
        LETTUCE.setLevel(java.util.logging.Level.SEVERE);
        Map<String, String> args = arguments(argv);
        List<HostAndPort> seeds = seeds(args.get("--seeds"));
        int replicas = Integer.parseInt(args.get("--replicas"));
        LeaseTerms terms = LeaseTerms.of(Long.parseLong(args.get("--ttl")), Long.parseLong(args.get("--margin")));
        String which = args.getOrDefault("--client", "jedis");

        Thread watch = new Thread(ChaosHolder::watchStdin, "stdin");
        watch.setDaemon(true);
        watch.start();

        Client client = null;
        LeaseHolder lease;
        // Joining the fleet: the first acquire is refused while no node is free, no replica
        // acknowledges it, or the reserve did not run it for a TTL (a failover); a holder keeps asking.
        while (true) {
            try {
                if (client == null) {
                    client = which.equals("lettuce") ? lettuce(seeds) : jedis(seeds);
                }
                lease = client.acquire(replicas, terms);
                break;
            } catch (RuntimeException refusal) {
                if (closed) {
                    System.err.println("ChaosHolder: no lease before the end: " + refusal);
                    if (client != null) {
                        client.close();
                    }
                    System.exit(1);
                }
                Thread.sleep(terms.retryMs());
            }
        }

        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(args.get("--out")))) {
            ByteBuffer record = ByteBuffer.allocate(RECORD).order(ByteOrder.LITTLE_ENDIAN);
            long flushed = System.nanoTime();
            while (!closed) {
                for (int i = 0; i < PER_TICK; i++) {
                    Minted minted;
                    try {
                        minted = lease.nextMinted();
                    } catch (EmqIdException refused) {
                        break; // no lease held now: the holder is taking one
                    }
                    record.clear();
                    record.putLong(minted.snowflake()).putLong(System.currentTimeMillis()).putInt(minted.lease()).putInt(0);
                    out.write(record.array());
                }
                if (System.nanoTime() - flushed >= 20_000_000L) {
                    out.flush();
                    flushed = System.nanoTime();
                }
                Thread.sleep(1);
            }
        }
        HolderStats stats = lease.stats();
        try {
            lease.release();
        } catch (RuntimeException e) {
            System.err.println("ChaosHolder: release: " + e);
        }
        System.out.println("{\"taken\": " + stats.taken() + ", \"lost\": " + stats.lost()
                + ", \"longest_unleased_ms\": " + stats.longestUnleasedMs() + "}");
        System.out.flush();
        client.close();
        // Lettuce's event loops are not daemon threads.
        System.exit(0);
    }

    private static void watchStdin() {
        byte[] buffer = new byte[4096];
        InputStream in = System.in;
        try {
            while (in.read(buffer) >= 0) {
                // Nothing is sent: the end of stdin is the signal.
            }
        } catch (IOException e) {
            // A closed stdin, as the end.
        }
        closed = true;
    }

    private static Map<String, String> arguments(String[] argv) {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i], argv[i + 1]);
        }
        for (String needed : List.of("--seeds", "--replicas", "--ttl", "--margin", "--out")) {
            if (!args.containsKey(needed)) {
                System.err.println("ChaosHolder needs " + needed);
                System.exit(2);
            }
        }
        return args;
    }

    private static List<HostAndPort> seeds(String text) {
        List<HostAndPort> seeds = new ArrayList<>();
        for (String seed : text.split(",")) {
            if (!seed.isBlank()) {
                int colon = seed.trim().lastIndexOf(':');
                seeds.add(new HostAndPort(seed.trim().substring(0, colon), Integer.parseInt(seed.trim().substring(colon + 1))));
            }
        }
        return seeds;
    }

    /** The first seed that answers; {@code cluster[0]} says whether it runs in cluster mode. */
    private static HostAndPort[] probe(List<HostAndPort> seeds, boolean[] cluster) {
        for (HostAndPort seed : seeds) {
            try (Jedis probe = new Jedis(seed.getHost(), seed.getPort(), CONNECT_MS)) {
                cluster[0] = probe.info("cluster").contains("cluster_enabled:1");
                return new HostAndPort[] {seed};
            } catch (RuntimeException e) {
                // The next seed.
            }
        }
        throw new IllegalStateException("no seed answered");
    }

    private static Client jedis(List<HostAndPort> seeds) {
        boolean[] cluster = new boolean[1];
        HostAndPort seed = probe(seeds, cluster)[0];
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(READ_MS).connectionTimeoutMillis(CONNECT_MS).build();
        if (cluster[0]) {
            RedisClusterClient valkey = RedisClusterClient.builder().nodes(new HashSet<>(seeds)).clientConfig(config).build();
            return new Client((replicas, terms) -> JedisLease.acquire(valkey, replicas, terms), valkey::close);
        }
        RedisClient valkey = RedisClient.builder().hostAndPort(seed).clientConfig(config).build();
        return new Client((replicas, terms) -> JedisLease.acquire(valkey, replicas, terms), valkey::close);
    }

    private static Client lettuce(List<HostAndPort> seeds) {
        boolean[] cluster = new boolean[1];
        HostAndPort seed = probe(seeds, cluster)[0];
        List<RedisURI> uris = new ArrayList<>();
        for (HostAndPort s : seeds) {
            uris.add(RedisURI.builder().withHost(s.getHost()).withPort(s.getPort())
                    .withTimeout(Duration.ofMillis(READ_MS)).build());
        }
        if (cluster[0]) {
            io.lettuce.core.cluster.RedisClusterClient valkey = io.lettuce.core.cluster.RedisClusterClient.create(uris);
            return new Client((replicas, terms) -> LettuceLease.acquire(valkey, replicas, terms),
                    () -> valkey.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        }
        io.lettuce.core.RedisClient valkey = io.lettuce.core.RedisClient.create();
        RedisURI server = RedisURI.builder().withHost(seed.getHost()).withPort(seed.getPort())
                .withTimeout(Duration.ofMillis(READ_MS)).build();
        return new Client((replicas, terms) -> LettuceLease.acquire(valkey, server, replicas, terms),
                    () -> valkey.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }
}
