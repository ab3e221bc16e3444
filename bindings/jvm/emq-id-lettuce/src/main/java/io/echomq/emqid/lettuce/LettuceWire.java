package io.echomq.emqid.lettuce;

import io.echomq.emqid.Keyspace;
import io.echomq.emqid.Lease;
import io.echomq.emqid.holder.Wire;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.ClientResources;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Wire} over Lettuce: each write on a connection of the holder's own to the node, its
 * commands queued with auto-flush off and flushed together (one round trip), each reply awaited
 * until the write's deadline.
 *
 * <p>Why connections of its own, not the cluster connection's node connections: those are shared
 * with the program's commands, so another thread's command could land between {@code ASKING}
 * and the script (and {@code ASKING} holds only for the next command); and Lettuce's default
 * auto-reconnect sends a command again after a reconnect (at least once), while a lease write
 * that may have run must never be sent twice. The wire's connections come from a
 * {@link RedisClient} of its own on the program's client's resources (its event loops) and
 * options, with auto-reconnect off (at most once); only the holder's thread uses them, one write
 * at a time.
 *
 * <p>Why {@link #open()} before the first write: the holder counts a write's time from before
 * {@link #send}, and a Lettuce cluster client loads its first slot map only when first asked
 * (from every seed, each up to its timeout), as a cold JVM's first connection loads Netty. Inside
 * the first acquire that wait counts against the lease: past its fence, the lease taken is lost
 * before a single id and a second node is taken.
 */
final class LettuceWire implements Wire {
    /** The slot of the protocol's one key, where the reserve's primary is found. */
    private static final int SLOT = Keyspace.slot(Lease.KEY);

    /** The program's cluster client (it finds the reserve's primary), or {@code null}. */
    private final RedisClusterClient cluster;
    /** The one server of a program's {@link RedisClient}, or {@code null}. */
    private final RedisURI server;
    /** The wire's own client: at-most-once connections. */
    private final RedisClient nodes;
    /** The connections open, by node. */
    private final Map<Node, StatefulRedisConnection<String, String>> open = new HashMap<>();
    /** The node a {@code MOVED} named, where the next write to the primary goes ({@code null}: the map's). */
    private Node movedTo;

    private LettuceWire(RedisClusterClient cluster, RedisURI server, ClientResources resources, ClientOptions options) {
        this.cluster = cluster;
        this.server = server;
        this.nodes = RedisClient.create(resources);
        this.nodes.setOptions(ClientOptions.copyOf(options).mutate()
                .autoReconnect(false)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
    }

    static LettuceWire ofCluster(RedisClusterClient cluster) {
        return new LettuceWire(cluster, null, cluster.getResources(), cluster.getOptions());
    }

    static LettuceWire ofServer(RedisClient client, RedisURI server) {
        return new LettuceWire(null, server, client.getResources(), client.getOptions());
    }

    @Override
    public Sent send(Optional<Node> to, List<List<String>> commands, long withinMs) throws Exception {
        Node node = to.isPresent() ? to.get() : primary();
        StatefulRedisConnection<String, String> connection = connection(node, withinMs);
        // This write's bound (a connection opened by open() has the client's): WAIT's reply must not expire first.
        connection.setTimeout(Duration.ofMillis(withinMs));
        boolean complete = false;
        try {
            RedisAsyncCommands<String, String> async = connection.async();
            List<RedisFuture<Object>> futures = new ArrayList<>(commands.size());
            for (List<String> command : commands) {
                CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
                for (String word : command.subList(1, command.size())) {
                    args.add(word.getBytes(StandardCharsets.UTF_8));
                }
                futures.add(async.dispatch(CommandType.valueOf(command.get(0)), new AnyReply(), args));
            }
            connection.flushCommands();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(withinMs);
            List<Object> replies = new ArrayList<>(futures.size());
            for (RedisFuture<Object> future : futures) {
                try {
                    replies.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RedisCommandExecutionException)) {
                        throw e;
                    }
                    // An error reply: Lettuce's exception carries the server's text as its message.
                    replies.add(new ErrorReply(String.valueOf(e.getCause().getMessage())));
                }
            }
            complete = true;
            return new Sent(node, replies);
        } finally {
            if (!complete) {
                // Replies left unread must never be taken for the next write's.
                drop(node);
            }
        }
    }

    /**
     * Reaches the reserve's primary before the holder's first write, so the write's time is its
     * round trip: the cluster client's slot map (loaded when first asked), the wire's connection
     * to the primary, and a {@code PING} on it (Lettuce's first command, its classes loaded),
     * bounded by the client's own timeout. What fails here is left to the first write, which the
     * core reads and retries: nothing is sent twice, since nothing of the lease was sent.
     *
     * @return this wire
     */
    LettuceWire open() {
        try {
            Node node = primary();
            send(Optional.of(node), List.of(List.of("PING")), template(node).getTimeout().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Unreachable, or no node serves the slot yet: the first write finds out.
        }
        return this;
    }

    @Override
    public void reroute(int slot, Optional<Node> to) {
        movedTo = to.orElse(null);
        refresh();
    }

    @Override
    public void reconnect() {
        movedTo = null;
        for (Node node : new ArrayList<>(open.keySet())) {
            drop(node);
        }
        refresh();
    }

    @Override
    public void close() {
        for (Node node : new ArrayList<>(open.keySet())) {
            drop(node);
        }
        // The resources are the program's (shared): shutting the wire's client down leaves them.
        nodes.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private void refresh() {
        if (cluster == null) {
            return;
        }
        try {
            cluster.refreshPartitions();
        } catch (RuntimeException e) {
            // No node answered: the next write finds out, and the core retries it.
        }
    }

    /** The reserve's primary: the node a MOVED named, else the one the cluster client's map names. */
    private Node primary() {
        if (server != null) {
            return new Node(server.getHost(), server.getPort());
        }
        Node moved = movedTo;
        movedTo = null;
        if (moved != null) {
            return moved;
        }
        RedisClusterNode primary = cluster.getPartitions().getPartitionBySlot(SLOT);
        if (primary == null) {
            cluster.refreshPartitions();
            primary = cluster.getPartitions().getPartitionBySlot(SLOT);
        }
        if (primary == null) {
            throw new IllegalStateException("no node of the cluster serves slot " + SLOT + " (" + Lease.KEY + ")");
        }
        return new Node(primary.getUri().getHost(), primary.getUri().getPort());
    }

    /** The wire's connection to {@code node}, opened when there is none. */
    private StatefulRedisConnection<String, String> connection(Node node, long withinMs) {
        StatefulRedisConnection<String, String> connection = open.get(node);
        if (connection != null && connection.isOpen()) {
            return connection;
        }
        if (connection != null) {
            drop(node);
        }
        connection = nodes.connect(StringCodec.UTF8, uri(node, withinMs));
        // Queued until flushCommands: ASKING, the script and WAIT leave in one write.
        connection.setAutoFlushCommands(false);
        open.put(node, connection);
        return connection;
    }

    /** The address of {@code node}, with the program's settings (credentials, TLS) where known. */
    private RedisURI uri(Node node, long withinMs) {
        return RedisURI.builder(template(node))
                .withHost(node.host())
                .withPort(node.port())
                .withTimeout(Duration.ofMillis(withinMs))
                .build();
    }

    /** The program's settings for {@code node}: its server's, or the reserve's primary's in the client's map. */
    private RedisURI template(Node node) {
        if (server != null) {
            return server;
        }
        RedisClusterNode primary = cluster.getPartitions().getPartitionBySlot(SLOT);
        return primary != null ? primary.getUri() : RedisURI.create(node.host(), node.port());
    }

    private void drop(Node node) {
        StatefulRedisConnection<String, String> connection = open.remove(node);
        if (connection != null) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                // Closing a broken connection: nothing more to do.
            }
        }
    }

    /**
     * Any reply, as the holder reads it: integers as {@link Long}, strings as UTF-8, arrays as
     * lists (nested by their counts), nil as {@code null}; an error reply is Lettuce's own
     * (the command completes exceptionally with the server's text).
     */
    static final class AnyReply extends CommandOutput<String, String, Object> {
        /** Arrays being filled, innermost first, each with the count still to come. */
        private final Deque<Open> arrays = new ArrayDeque<>();

        AnyReply() {
            super(StringCodec.UTF8, null);
        }

        @Override
        public void set(ByteBuffer bytes) {
            add(bytes == null ? null : StandardCharsets.UTF_8.decode(bytes).toString());
        }

        @Override
        public void setSingle(ByteBuffer bytes) {
            set(bytes);
        }

        @Override
        public void set(long integer) {
            add(integer);
        }

        @Override
        public void multi(int count) {
            open(count);
        }

        @Override
        public void multiArray(int count) {
            open(count);
        }

        @Override
        public void multiSet(int count) {
            open(count);
        }

        private void open(int count) {
            if (count < 0) {
                add(null);
                return;
            }
            Open array = new Open(count);
            if (count == 0) {
                add(array.items);
            } else {
                arrays.push(array);
            }
        }

        private void add(Object value) {
            Open array = arrays.peek();
            if (array == null) {
                output = value;
                return;
            }
            array.items.add(value);
            if (array.items.size() == array.count) {
                arrays.pop();
                add(array.items);
            }
        }

        private static final class Open {
            final int count;
            final List<Object> items;

            Open(int count) {
                this.count = count;
                this.items = new ArrayList<>(count);
            }
        }
    }
}
