package io.echomq.emqid;

import java.util.Optional;

/**
 * A queue key read back by {@link Keyspace#parseKey}.
 *
 * @param queue the queue, the key's hash tag
 * @param family the key's family as its pattern ({@code g:<name>:pending})
 * @param param the family's parameter (a name or a job id), empty for a family without one
 */
public record ParsedKey(String queue, String family, Optional<String> param) {}
