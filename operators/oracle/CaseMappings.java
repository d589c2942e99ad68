import java.util.Locale;

/**
 * Prints every code point whose Java {@code String.toUpperCase()} or {@code toLowerCase()} (of
 * the code point alone, in a locale without tailored mappings) is not the code point itself:
 * {@code cp \t upper \t lower}, each as hex code points separated by spaces. The JVM it runs on
 * is the one whose Unicode tables the Rust case mapping must reproduce (Java 17: Unicode 13).
 *
 * <p>Run: {@code java operators/oracle/CaseMappings.java > operators/oracle/expected/case_mappings.txt}
 */
public class CaseMappings {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        for (int cp = 0; cp <= 0x10FFFF; cp++) {
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                continue;
            }
            String s = new String(Character.toChars(cp));
            String upper = s.toUpperCase(Locale.ROOT);
            String lower = s.toLowerCase(Locale.ROOT);
            if (!upper.equals(s) || !lower.equals(s)) {
                out.append(Integer.toHexString(cp)).append('\t').append(hex(upper)).append('\t').append(hex(lower)).append('\n');
            }
        }
        System.out.print(out);
    }

    private static String hex(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(b.length() == 0 ? "" : " ").append(Integer.toHexString(c)));
        return b.toString();
    }
}
