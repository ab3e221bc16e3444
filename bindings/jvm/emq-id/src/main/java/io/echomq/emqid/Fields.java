package io.echomq.emqid;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the one shape of a native answer with several parts (the crate's {@code fields.rs}):
 * each field a big-endian {@code int} length then that many UTF-8 bytes, {@code -1} for an
 * absent field (read as {@code null}).
 */
final class Fields {
    private Fields() {}

    /** The fields of {@code bytes}, in order. */
    static List<String> read(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        List<String> fields = new ArrayList<>();
        while (in.hasRemaining()) {
            int len = in.getInt();
            if (len < 0) {
                fields.add(null);
                continue;
            }
            fields.add(new String(bytes, in.position(), len, StandardCharsets.UTF_8));
            in.position(in.position() + len);
        }
        return fields;
    }

    /** Pairs of name and decimal number. */
    static Map<String, Long> numbers(byte[] bytes) {
        List<String> fields = read(bytes);
        Map<String, Long> numbers = new LinkedHashMap<>();
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            numbers.put(fields.get(i), Long.parseUnsignedLong(fields.get(i + 1)));
        }
        return Collections.unmodifiableMap(numbers);
    }

    /** Pairs of name and text. */
    static Map<String, String> texts(byte[] bytes) {
        List<String> fields = read(bytes);
        Map<String, String> texts = new LinkedHashMap<>();
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            texts.put(fields.get(i), fields.get(i + 1));
        }
        return Collections.unmodifiableMap(texts);
    }
}
