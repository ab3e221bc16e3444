package io.echomq.emqid;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One of the lease protocol's Lua scripts, byte for byte the core's.
 *
 * @param name {@code acquire}, {@code renew} or {@code release}
 * @param text the Lua source
 * @param keys what {@code KEYS} holds, in order (every script declares {@link Lease#KEY})
 * @param args what {@code ARGV} holds, in order
 */
public record LeaseScript(String name, String text, List<String> keys, List<String> args) {
    /** The scripts of the core's table 7: name, text, the count of keys and each, the count of args and each. */
    static List<LeaseScript> fromTable(List<String> fields) {
        List<LeaseScript> scripts = new ArrayList<>();
        int at = 0;
        while (at < fields.size()) {
            String name = fields.get(at++);
            String text = fields.get(at++);
            int nKeys = Integer.parseInt(fields.get(at++));
            List<String> keys = List.copyOf(fields.subList(at, at + nKeys));
            at += nKeys;
            int nArgs = Integer.parseInt(fields.get(at++));
            List<String> args = List.copyOf(fields.subList(at, at + nArgs));
            at += nArgs;
            scripts.add(new LeaseScript(name, text, keys, args));
        }
        return Collections.unmodifiableList(scripts);
    }
}
