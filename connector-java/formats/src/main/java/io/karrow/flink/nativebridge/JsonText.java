package io.karrow.flink.nativebridge;

import java.util.Map;

/** Minimal JSON text helpers for the configuration strings handed to native code. */
public final class JsonText {

    private JsonText() {}

    /** Appends {@code value} as a JSON string literal, or {@code null} when it is null. */
    public static StringBuilder appendString(StringBuilder out, String value) {
        if (value == null) {
            return out.append("null");
        }
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"');
    }

    /** Appends a JSON object whose values are all strings (null values are written as null). */
    public static StringBuilder appendStringMap(StringBuilder out, Map<String, String> map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : map.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            appendString(out, e.getKey()).append(':');
            appendString(out, e.getValue());
        }
        return out.append('}');
    }

    /**
     * The value of a JSON string literal (the whole of {@code json}, quotes included), as native code
     * replies with one.
     *
     * @throws IllegalArgumentException if {@code json} is not one string literal
     */
    public static String parseString(String json) {
        String text = json.trim();
        if (text.length() < 2 || text.charAt(0) != '"' || text.charAt(text.length() - 1) != '"') {
            throw new IllegalArgumentException("not a JSON string: " + json);
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 1; i < text.length() - 1; i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= text.length() - 1) {
                throw new IllegalArgumentException("a dangling escape in " + json);
            }
            char e = text.charAt(i);
            switch (e) {
                case '"': case '\\': case '/': out.append(e); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (i + 4 >= text.length()) {
                        throw new IllegalArgumentException("a short \\u escape in " + json);
                    }
                    out.append((char) Integer.parseInt(text.substring(i + 1, i + 5), 16));
                    i += 4;
                    break;
                default:
                    throw new IllegalArgumentException("an unknown escape \\" + e + " in " + json);
            }
        }
        return out.toString();
    }
}
