package io.echomq.emqid.holder;

/**
 * A snowflake and the lease that minted it.
 *
 * @param snowflake the snowflake
 * @param lease the {@link Held#ordinal()} of the lease that minted it
 */
public record Minted(long snowflake, int lease) {}
