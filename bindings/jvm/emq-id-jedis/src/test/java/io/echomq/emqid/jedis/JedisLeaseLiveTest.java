package io.echomq.emqid.jedis;

import io.echomq.emqid.testing.LiveLeases;
import io.echomq.emqid.testing.LiveLeases.Client;
import io.echomq.emqid.testing.Valkey;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * The Jedis holder against live valkey-servers, in the scenarios every holder passes
 * ({@link LiveLeases}, which says what each one proves): this test only makes Jedis' clients.
 */
class JedisLeaseLiveTest {
    @TempDir
    Path dir;

    /**
     * A cluster client seeded with {@code seed}. Jedis loads its slot map when the client is made,
     * before the acquire's time starts; its map names a node that names no host by the address the
     * client was given.
     */
    private static Client cluster(Valkey seed) {
        RedisClusterClient client = RedisClusterClient.create(new HostAndPort("127.0.0.1", seed.port));
        return new Client((replicas, terms) -> JedisLease.acquire(client, replicas, terms), client::close);
    }

    /** A client of one server. */
    private static Client server(Valkey server) {
        RedisClient client = RedisClient.create("127.0.0.1", server.port);
        return new Client((replicas, terms) -> JedisLease.acquire(client, replicas, terms), client::close);
    }

    @TestFactory
    Stream<DynamicTest> scenarios() {
        return LiveLeases.scenarios(dir, JedisLeaseLiveTest::cluster, JedisLeaseLiveTest::server);
    }
}
