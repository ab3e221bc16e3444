package io.echomq.emqid.jedis;

import io.echomq.emqid.Keyspace;
import io.echomq.emqid.Lease;
import io.echomq.emqid.holder.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * A {@link Wire} over Jedis: each write on one {@link Connection} borrowed from the pool of its
 * node, its commands sent pipelined and read with {@code getMany}, then given back.
 *
 * <p>A Jedis {@link Connection} retries nothing and follows no redirect (the cluster client's
 * executors do, and the holder never goes through them), and {@code getMany} hands an error
 * reply back in the list as the exception it would have thrown, leaving the connection usable.
 * A connection whose replies did not all come is marked broken, so its pool destroys it and no
 * later command reads this write's replies.
 */
final class JedisWire implements Wire {
    /** The slot of the protocol's one key, where the reserve's primary is found. */
    private static final int SLOT = Keyspace.slot(Lease.KEY);

    /** A cluster client, as far as the wire uses it (RedisClusterClient and JedisCluster alike). */
    interface Cluster {
        /** The pools of the nodes the client knows, by {@code host:port}. */
        Map<String, ConnectionPool> nodes();

        /** A connection to the primary of {@code slot}, from its pool. */
        Connection bySlot(int slot);

        /** Loads the slot map again. */
        void refresh();
    }

    /** A cluster client, or {@code null} for a client of one server. */
    private final Cluster cluster;
    /** A client of one server: its pool. */
    private final Pool<Connection> server;
    /** The node a {@code MOVED} named, where the next write to the primary goes ({@code null}: the client's). */
    private Node movedTo;
    /** The reserve's primary as the last write found it ({@code null}: ask the client's map). */
    private Node primary;

    private JedisWire(Cluster cluster, Pool<Connection> server) {
        this.cluster = cluster;
        this.server = server;
    }

    static JedisWire ofCluster(Supplier<Map<String, ConnectionPool>> nodes, IntFunction<Connection> bySlot,
            Runnable refresh) {
        return new JedisWire(new Cluster() {
            @Override
            public Map<String, ConnectionPool> nodes() {
                return nodes.get();
            }

            @Override
            public Connection bySlot(int slot) {
                return bySlot.apply(slot);
            }

            @Override
            public void refresh() {
                refresh.run();
            }
        }, null);
    }

    static JedisWire ofServer(Pool<Connection> server) {
        return new JedisWire(null, server);
    }

    @Override
    public Sent send(Optional<Node> to, List<List<String>> commands, long withinMs) {
        Connection connection = to.isPresent() ? borrow(to.get(), withinMs) : primary(withinMs);
        boolean complete = false;
        try {
            HostAndPort address = connection.getHostAndPort();
            Node node = address != null ? new Node(address.getHost(), address.getPort()) : to.orElseThrow();
            // The holder's bound, whatever the client's socket timeout: WAIT's reply must not time out.
            connection.setSoTimeout((int) Math.min(Integer.MAX_VALUE, withinMs));
            for (List<String> command : commands) {
                connection.sendCommand(command(command.get(0)), words(command));
            }
            List<Object> raw = connection.getMany(commands.size());
            List<Object> replies = new ArrayList<>(raw.size());
            for (Object reply : raw) {
                replies.add(reply(reply));
            }
            connection.rollbackTimeout();
            complete = true;
            return new Sent(node, replies);
        } finally {
            if (!complete) {
                connection.setBroken();
            }
            // A pool's connection goes back to it (destroyed there when broken); the wire's own closes.
            connection.close();
        }
    }

    @Override
    public void reroute(int slot, Optional<Node> to) {
        movedTo = to.orElse(null);
        primary = null;
        refresh();
    }

    @Override
    public void reconnect() {
        // Connections are borrowed per write (a broken one is destroyed by its pool): only the map.
        movedTo = null;
        refresh();
    }

    @Override
    public void close() {
        // Nothing kept: every connection went back to its pool after its write.
    }

    private void refresh() {
        if (cluster == null) {
            return;
        }
        try {
            cluster.refresh();
        } catch (RuntimeException e) {
            // No node answered: the next write finds out, and the core retries it.
        }
    }

    /**
     * A connection to the reserve's primary: the node a MOVED named, else the one the last write
     * found, else the client's for the slot (the one wait Jedis bounds by its own pool settings,
     * taken only until a write has found the primary).
     */
    private Connection primary(long withinMs) {
        if (cluster == null) {
            return bounded(server, withinMs);
        }
        Node moved = movedTo;
        movedTo = null;
        if (moved != null) {
            primary = moved;
        }
        if (primary != null) {
            return borrow(primary, withinMs);
        }
        Connection connection = cluster.bySlot(SLOT);
        HostAndPort address = connection.getHostAndPort();
        if (address != null) {
            primary = new Node(address.getHost(), address.getPort());
        }
        return connection;
    }

    /**
     * A connection to {@code node}: from its pool when the cluster client knows it, else one of
     * the wire's own, closed after the write (a node an ASK names that the map does not have
     * yet, or any node behind a client of one server).
     */
    private Connection borrow(Node node, long withinMs) {
        if (cluster != null) {
            ConnectionPool pool = cluster.nodes().get(node.toString());
            if (pool == null && node.host().contains(":")) {
                pool = cluster.nodes().get("[" + node.host() + "]:" + node.port());
            }
            if (pool != null) {
                return bounded(pool, withinMs);
            }
        }
        // Without the client's configuration (it keeps it private): a plain connection, bounded.
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(2_000).build();
        return new Connection(new HostAndPort(node.host(), node.port()), config);
    }

    /**
     * A connection of {@code pool} within {@code withinMs}, handed back to it when closed. Jedis
     * leaves its pools' wait unbounded (commons-pool's default), so a program that holds every
     * connection of a node would otherwise park the renewer, and the fence would close on a
     * lease nobody can renew or release.
     */
    static Connection bounded(Pool<Connection> pool, long withinMs) {
        if (!(pool instanceof ConnectionPool connections)) {
            return pool.getResource();
        }
        try {
            Connection connection = connections.borrowObject(Duration.ofMillis(Math.max(1, withinMs)));
            connection.setHandlingPool(connections);
            return connection;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisException("no connection of the pool within " + withinMs + " ms", e);
        }
    }

    /** A command's name, as Jedis sends it. */
    private static ProtocolCommand command(String name) {
        byte[] raw = name.getBytes(StandardCharsets.UTF_8);
        return () -> raw;
    }

    /** A command's arguments, as UTF-8 (never the platform's charset). */
    private static byte[][] words(List<String> command) {
        byte[][] args = new byte[command.size() - 1][];
        for (int i = 1; i < command.size(); i++) {
            args[i - 1] = command.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return args;
    }

    /** A reply as the holder reads it: an error reply's text, bytes as UTF-8, arrays converted. */
    private static Object reply(Object raw) {
        if (raw instanceof JedisDataException) {
            return new ErrorReply(String.valueOf(((JedisDataException) raw).getMessage()));
        }
        if (raw instanceof RuntimeException) {
            throw (RuntimeException) raw;
        }
        if (raw instanceof byte[]) {
            return new String((byte[]) raw, StandardCharsets.UTF_8);
        }
        if (raw instanceof List) {
            List<?> items = (List<?>) raw;
            List<Object> out = new ArrayList<>(items.size());
            for (Object item : items) {
                out.add(reply(item));
            }
            return out;
        }
        return raw; // Long, String, null
    }
}
