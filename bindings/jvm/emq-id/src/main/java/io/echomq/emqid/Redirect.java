package io.echomq.emqid;

import java.util.Optional;

/**
 * Where a {@code MOVED} or {@code ASK} reply sends a write ({@link Lease#redirect}).
 *
 * @param ask {@code ASK} (followed once, after {@code ASKING}), not {@code MOVED}
 * @param slot the slot
 * @param host the node's host (an IPv6 address without brackets), or empty: the host the
 *     redirected connection was opened to
 * @param port the node's port
 */
public record Redirect(boolean ask, int slot, Optional<String> host, int port) {}
