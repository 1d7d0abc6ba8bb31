import { describe, expect, test } from "bun:test";
import { javaPublicClass, translateUnicodeEscapes } from "../../src/judge/run/java-class";

// The java preset's file and entry point are named after the source's public class, as javac reads the source
// (src/judge/run/java-class.ts): what a comment, a string or a text block says is no declaration, and a name that
// is not a Java identifier is refused before it could reach javac's command line as `@file`.
const named = (source: string) => javaPublicClass(source, "Main.java");

describe("the public class of a Java source", () => {
  test("the first public top-level type, modifiers and annotations before it allowed", () => {
    expect(named("import java.util.*;\npublic class Solution { }\n")).toEqual({ name: "Solution" });
    expect(named('@SuppressWarnings("x") public final strictfp class A<T> {}')).toEqual({ name: "A" });
    expect(named("public @Deprecated(since = Object.class) abstract class B {}")).toEqual({ name: "B" });
    expect(named("public sealed interface C permits D {}\nfinal class D implements C {}")).toEqual({ name: "C" });
    expect(named("public enum E { X; public static void main(String[] a) {} }")).toEqual({ name: "E" });
    expect(named("public record R(int a) {}")).toEqual({ name: "R" });
    expect(named("public @interface Q {}")).toEqual({ name: "Q" });
  });

  test("a class that is not public, or not top-level, is not the one", () => {
    expect(named("class Helper {}\npublic class Main2 {}")).toEqual({ name: "Main2" });
    expect(named("class Outer {\n  public class Inner {}\n  public static class Nested {}\n}\n")).toEqual({
      name: "Main",
    });
    expect(named("public class Top { public class Inner {} }")).toEqual({ name: "Top" });
  });

  test("Main when there is no public type", () => {
    expect(named("class Solution { public static void main(String[] a) {} }")).toEqual({ name: "Main" });
    expect(named("")).toEqual({ name: "Main" });
  });

  test("comments, strings, char literals and text blocks declare nothing", () => {
    const source = [
      "// public class LineComment",
      "/* public class BlockComment",
      "   public class @x */",
      'class S { String s = "public class InString"; char c = \'"\'; String t = "\\" public class Escaped";',
      '  String block = """',
      "    public class InTextBlock",
      '    \\""" public class StillInside',
      '    """; }',
      "public class Real {}",
    ].join("\n");
    expect(named(source)).toEqual({ name: "Real" });
  });

  test("Unicode identifiers Java allows are names", () => {
    expect(named("public class Привет {}")).toEqual({ name: "Привет" });
    expect(named("public class 解答 {}")).toEqual({ name: "解答" });
    expect(named("public class $Money_2 {}")).toEqual({ name: "$Money_2" });
    expect(named("public class 𝒜lpha {}")).toEqual({ name: "𝒜lpha" });
  });

  test("a name that is no Java identifier is an error naming the line, never a name", () => {
    expect(named("import java.util.*;\n\npublic class @x {}")).toEqual({
      error: 'Main.java:3: a public class\'s name must be a Java identifier, not "@x"',
    });
    for (const source of ["public class -d {}", "public class 1st {}", "public class _ {}", "public class var {}"])
      expect(named(source)).toHaveProperty("error");
    expect(named("public class")).toEqual({
      error: "Main.java:1: a public class's name must be a Java identifier, not nothing",
    });
  });

  test("Unicode escapes are read first, as javac reads them", () => {
    expect(translateUnicodeEscapes("\\u0041 \\\\u0041 \\\\\\uu0041")).toBe("A \\\\u0041 \\\\A");
    // An escaped line break ends the comment: the declaration after it is code.
    expect(named("// note \\u000a public class Hidden {}")).toEqual({ name: "Hidden" });
    expect(named("public class \\u0040x {}")).toHaveProperty("error");
    expect(named("public class \\u0058 {}")).toEqual({ name: "X" });
  });
});
