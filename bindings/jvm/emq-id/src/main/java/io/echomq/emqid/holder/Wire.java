package io.echomq.emqid.holder;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link LeaseHolder} reaches Valkey: one lease write, sent to one node as one round trip.
 *
 * <p>A write is a few commands the holder builds (the core's script by {@code EVAL} with
 * {@code KEYS} = [{@link io.echomq.emqid.Lease#KEY}], then {@code WAIT replicas timeout}; with
 * {@code ASKING} in front when it follows an {@code ASK}). A wire sends them pipelined on one
 * connection and reads one reply per command: {@code WAIT} counts the replicas of the node that
 * ran the script only on the connection that ran it, and {@code ASKING} holds only for the very
 * next command on its connection.
 *
 * <p>A wire moves bytes and decides nothing: it never retries a write (a write whose reply was
 * lost may have run, and an acquire sent again would take a second node), never follows a
 * redirect by itself (the core says when to), and hands error replies back as their text. The
 * holder calls it from one thread at a time. {@code emq-id-jedis} and {@code emq-id-lettuce}
 * are wires over those clients; a program may write its own for another client.
 */
public interface Wire extends AutoCloseable {

    /**
     * A node of the cluster (or the one server): where a write goes.
     *
     * @param host its host name or address (an IPv6 address without brackets)
     * @param port its port
     */
    record Node(String host, int port) {
        /**
         * A node, checked.
         *
         * @param host its host name or address
         * @param port its port, 0 to 65535
         */
        public Node {
            Objects.requireNonNull(host, "host");
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("a port is 0 to 65535, not " + port);
            }
        }

        /** {@return {@code host:port}, as a {@code MOVED} reply names a node} */
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /**
     * An error reply, as the server sent it (its code first: {@code "MOVED 9051 10.0.0.2:7001"},
     * {@code "ERR EMQLEASE every node is leased"}); the text after the {@code -} of RESP.
     *
     * @param text the error's text
     */
    record ErrorReply(String text) {
        /**
         * An error reply.
         *
         * @param text the error's text
         */
        public ErrorReply {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * What one round trip came to.
     *
     * @param node the node the commands went to (the one the client found for the reserve's
     *     slot, when none was named): a redirect that names no host means this node's host
     * @param replies one reply per command, in order: a {@link Long} (an integer), a
     *     {@link String} (a status or a bulk string, as UTF-8), a {@link List} of replies (an
     *     array), {@code null} (nil), or an {@link ErrorReply}
     */
    record Sent(Node node, List<Object> replies) {
        /**
         * What a round trip came to.
         *
         * @param node the node the commands went to
         * @param replies one reply per command, in order
         */
        public Sent {
            Objects.requireNonNull(node, "node");
            replies = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(replies));
        }
    }

    /**
     * Sends {@code commands} pipelined on one connection to {@code to} — or, when it is empty, to
     * the primary that serves the reserve's slot ({@link io.echomq.emqid.Lease#KEY}) as the
     * client knows it now, or the node a {@link #reroute} named — and reads one reply per
     * command. A reply not read within {@code withinMs} ends the write: the wire drops that
     * connection (an unread reply must never be taken for the next write's) and throws.
     *
     * @param to the node to send to, or empty for the reserve's primary
     * @param commands the commands, each its words (the first is the command's name)
     * @param withinMs how long the replies may take, ms
     * @return the node the commands went to and their replies
     * @throws Exception when the node cannot be reached or the replies did not all come: the
     *     holder reads it as a fault (whether the write ran is unknown)
     */
    Sent send(Optional<Node> to, List<List<String>> commands, long withinMs) throws Exception;

    /**
     * {@code MOVED} (or {@code READONLY}): another primary serves the reserve's slot. The next
     * {@link #send} without a node goes to {@code to} when it is given (the client's topology is
     * refreshed meanwhile), else to the primary the refreshed topology names.
     *
     * @param slot the slot the reply named (the reserve's), or -1 when the reply named none
     * @param to the node a {@code MOVED} named, or empty
     */
    void reroute(int slot, Optional<Node> to);

    /**
     * A fault (a dropped connection, a reply the protocol does not give): drop the connection to
     * the reserve's primary, so the next write opens another, and let the client find the
     * primary again.
     */
    void reconnect();

    /** Closes what the wire opened; never the client it was given, which is the caller's. */
    @Override
    void close();
}
