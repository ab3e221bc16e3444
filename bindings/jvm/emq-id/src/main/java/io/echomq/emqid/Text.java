package io.echomq.emqid;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one place Java text becomes the bytes the core reads, and back: always UTF-8, never the
 * platform's charset. Text with a lone surrogate has no UTF-8 and is refused with
 * {@link IllegalArgumentException} (Java's own encoder would put {@code ?} in its place).
 */
final class Text {
    private Text() {}

    /** The UTF-8 of {@code text}; {@code what} names it in a refusal. */
    static byte[] utf8(CharSequence text, String what) {
        if (text == null) {
            throw new NullPointerException(what);
        }
        String s = text.toString();
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        // Java's encoder writes '?' for a lone surrogate: only then is a strict pass needed.
        if (bytes.length == s.length() && !contains(bytes, (byte) '?')) {
            return bytes;
        }
        return strict(s, what);
    }

    private static boolean contains(byte[] bytes, byte b) {
        for (byte x : bytes) {
            if (x == b) {
                return true;
            }
        }
        return false;
    }

    private static byte[] strict(String s, String what) {
        try {
            ByteBuffer out = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(s));
            byte[] bytes = new byte[out.remaining()];
            out.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(what + " is not valid Unicode (a lone surrogate has no UTF-8)", e);
        }
    }

    /** The UTF-8 of a value that may be absent. */
    static byte[] utf8OrNull(CharSequence text, String what) {
        return text == null ? null : utf8(text, what);
    }

    /** Text the core answered (UTF-8). */
    static String of(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** An id's 14 ASCII bytes as text (Latin-1 is the fastest exact decoder for ASCII). */
    static String ofAscii(byte[] bytes, int offset, int length) {
        return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
    }
}
