import { describe, expect, test } from "bun:test";
import { markdownAsLatex } from "../../src/modules/problem-packages/kattis/kattis-export-extras";

// Legacy's LaTeX twin of a Markdown statement (kattis-export-extras.ts markdownAsLatex): what problem2pdf
// compiles. An FPS statement's image came out as \includegraphics{<__1.png>} ("Unknown graphics extension:
// .png>"): Markdown's angle brackets around a target are its syntax, not part of the file's name.
const body = (markdown: string) => markdownAsLatex(markdown, "Sum").split("\n").slice(2).join("\n").trimEnd();

describe("markdownAsLatex", () => {
  test("an image's target in angle brackets is the file inside them", () => {
    expect(body("![](<__1.png>)")).toBe("\\includegraphics{__1.png}");
    expect(body("![a figure](<figure one.png>)")).toBe("\\includegraphics{figure one.png}");
  });

  test("an image's title is not part of its target", () => {
    expect(body('![x](figure.png "The figure")')).toBe("\\includegraphics{figure.png}");
  });

  test("a link is an \\href to its target, in brackets or bare, with its text escaped", () => {
    expect(body("see [the notes](<../attachments/notes 1.pdf>) and [100%_done](https://example.org/a#b%20)")).toBe(
      "see \\href{../attachments/notes\\%201.pdf}{the notes} and \\href{https://example.org/a\\#b\\%20}{100\\%\\_done}",
    );
  });

  test("mathematics and inline code beside a link stay as they were", () => {
    expect(body("$a_1$ is `x_1` ([why](w.png))")).toBe("$a_1$ is \\texttt{x\\_1} (\\href{w.png}{why})");
  });
});
