import Foundation
@testable import ImagePrep

/// Opens a manifest's `<picture>` snippets in Debian's headless Chromium and reports what the browser did:
/// for each viewport width (an iframe of that width, loaded one after another from the narrowest, so a
/// wider frame's downloads cannot be in the cache when a narrower one chooses) every `<img>`'s
/// `currentSrc`, natural size and `complete`, which scripts and elements exist (a caption that ran as
/// markup shows up there), and, last, every variant of the manifest loaded on its own: its natural size and
/// its average colour drawn through a canvas (so it was really decoded). One Chromium run per pixel ratio.
///
/// The pages are written next to the manifest, so the snippets' relative URLs resolve as on a site.
/// `--dump-dom` prints the DOM once the page is idle; the page writes its report into it.
enum BrowserCheck {
    static let chromium = "/usr/bin/chromium"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: chromium) }

    /// Hostile captions call this; the page records each call (a caption that stayed text never does).
    static let injectionProbe = "__imgprepInjected"

    struct Image: Decodable {
        var source: String
        var found: Bool
        /// Relative to the manifest's folder and percent-decoded when it is a file there; else as the browser has it.
        var currentSrc: String
        var naturalWidth: Int, naturalHeight: Int
        var complete: Bool
        var alt: String
    }

    struct Frame: Decodable {
        var requestedWidth: Int
        var innerWidth: Int
        var devicePixelRatio: Double
        /// What the injection probe was called with.
        var ran: [String]
        var scripts: Int
        var images: Int
        /// Elements in the body other than the entries' div, picture, source and img.
        var others: [String]
        var entries: [Image]
    }

    struct Variant: Decodable {
        var path: String
        var naturalWidth: Int, naturalHeight: Int
        /// The picture drawn into a 1x1 canvas (RGBA): its average colour; nil when it did not load.
        var average: [Int]?
        var problem: String
    }

    struct Report: Decodable {
        var devicePixelRatio: Double
        var frames: [Frame]
        var variants: [Variant]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads the manifest at `manifestFile` and runs the check for each pixel ratio.
    static func run(manifestFile: URL, widths: [Int], pixelRatios: [Double]) throws -> [Report] {
        let manifest = try Manifest.decode(TestSupport.bytes(manifestFile.path))
        return try run(manifest, in: manifestFile.deletingLastPathComponent(), widths: widths, pixelRatios: pixelRatios)
    }

    /// The same for a manifest whose variants' paths are relative to `directory`.
    static func run(_ manifest: Manifest, in directory: URL, widths: [Int], pixelRatios: [Double]) throws -> [Report] {
        let sources = manifest.images.keys.sorted()
        let entries = sources.map { source in
            "<div class=\"imgprep-entry\" data-source=\"\(HTMLText.escaped(source.path))\">\(manifest.images[source]?.html ?? "")</div>"
        }
        let variants = sources.flatMap { manifest.images[$0]?.variants ?? [] }.map {
            "<img data-path=\"\(HTMLText.escaped($0.path))\" src=\"\(HTMLText.escaped(PictureMarkup.url($0.path, baseURL: nil)))\">"
        }
        try framePage(entries).write(to: directory.appendingPathComponent("browser-check-frame.html"), atomically: true, encoding: .utf8)
        try variantsPage(variants).write(to: directory.appendingPathComponent("browser-check-variants.html"), atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("browser-check.html")
        try topPage(widths).write(to: page, atomically: true, encoding: .utf8)
        return try pixelRatios.map { try open(page, windowWidth: max(widths.max() ?? 800, 100), pixelRatio: $0) }
    }

    private static func open(_ page: URL, windowWidth: Int, pixelRatio: Double) throws -> Report {
        let profile = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: profile) }
        let run = try runWithDeadline(chromium, [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--user-data-dir=\(profile.path)", "--window-size=\(windowWidth),900", "--force-device-scale-factor=\(pixelRatio)",
            "--virtual-time-budget=20000", "--allow-file-access-from-files", "--dump-dom", page.absoluteString,
        ], seconds: 180)
        let marker = "<pre id=\"imgprep-result\">"
        guard let start = run.stdout.range(of: marker),
              let end = run.stdout.range(of: "</pre>", range: start.upperBound..<run.stdout.endIndex) else {
            throw Failure(description: "chromium (status \(run.status)) printed no page: \(run.stderr.suffix(2000))")
        }
        let encoded = String(run.stdout[start.upperBound..<end.lowerBound])
        guard !encoded.isEmpty, let json = encoded.removingPercentEncoding else {
            throw Failure(description: "the page did not finish (an image never loaded?): \(run.stdout.suffix(2000))")
        }
        return try JSONDecoder().decode(Report.self, from: Data(json.utf8))
    }

    /// Chromium should finish in seconds; a hung one is killed rather than hanging the suite.
    private static func runWithDeadline(_ executable: String, _ arguments: [String], seconds: Double) throws -> TestSupport.Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("imgprep-chromium-\(UUID().uuidString)")
        let err = out.appendingPathExtension("err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
              FileManager.default.createFile(atPath: err.path, contents: nil) else {
            throw Failure(description: "cannot create \(out.path)")
        }
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        // Files, not pipes: nothing has to drain them while we wait on the deadline.
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        if !TestSupport.waitUntil(seconds: seconds, { !process.isRunning }) {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "chromium did not finish within \(Int(seconds)) s")
        }
        process.waitUntilExit()
        return TestSupport.Run(status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
                               stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    // MARK: the pages

    private static func topPage(_ widths: [Int]) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}iframe{display:block;border:0;height:60px}</style></head><body>
        <pre id="imgprep-result"></pre>
        <script>
        function frame(page, width) {
          return new Promise(resolve => {
            const element = document.createElement('iframe');
            element.style.width = width + 'px';
            addEventListener('message', function heard(event) {
              if (event.source !== element.contentWindow) return;
              removeEventListener('message', heard);
              resolve(JSON.parse(event.data));
            });
            element.src = page;
            document.body.appendChild(element);
          });
        }
        (async () => {
          const frames = [];
          for (const width of \(widths)) frames.push(Object.assign(await frame('browser-check-frame.html', width), {requestedWidth: width}));
          const variants = await frame('browser-check-variants.html', 100);
          document.getElementById('imgprep-result').textContent = encodeURIComponent(JSON.stringify({devicePixelRatio, frames, variants}));
        })();
        </script></body></html>
        """
    }

    /// The entries, each in its div. The images are laid out 4 px high so every one is in view and its lazy
    /// load starts; `sizes` (not the layout) decides which candidate is chosen.
    private static func framePage(_ entries: [String]) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}img{display:block;width:100%;height:4px}</style>
        <script>
        window.\(injectionProbe) = what => { (window.imgprepRan = window.imgprepRan || []).push(String(what)); };
        function settled(img) {
          return new Promise(resolve => {
            if (img.complete && img.naturalWidth > 0) return resolve();
            img.addEventListener('load', resolve);
            img.addEventListener('error', resolve);
          });
        }
        addEventListener('DOMContentLoaded', async () => {
          const entries = [...document.querySelectorAll('body > div.imgprep-entry')];
          const imgs = entries.map(entry => entry.querySelector(':scope > picture > img'));
          await Promise.all(imgs.filter(img => img).map(settled));
          const folder = decodeURIComponent(new URL('.', location.href).pathname);
          const relative = src => {
            if (!src) return '';
            const url = new URL(src);
            if (url.protocol !== 'file:') return src;
            const path = decodeURIComponent(url.pathname);
            return path.startsWith(folder) ? path.slice(folder.length) : src;
          };
          parent.postMessage(JSON.stringify({
            innerWidth, devicePixelRatio, ran: window.imgprepRan || [], scripts: document.scripts.length, images: document.images.length,
            others: [...document.body.querySelectorAll('*')].map(e => e.localName).filter(name => !['div', 'picture', 'source', 'img'].includes(name)),
            entries: entries.map((entry, i) => ({
              source: entry.dataset.source, found: !!imgs[i], currentSrc: relative(imgs[i]?.currentSrc),
              naturalWidth: imgs[i]?.naturalWidth ?? 0, naturalHeight: imgs[i]?.naturalHeight ?? 0,
              complete: imgs[i]?.complete ?? false, alt: imgs[i]?.getAttribute('alt') ?? ''}))
          }), '*');
        });
        </script></head><body>
        \(entries.joined(separator: "\n"))
        </body></html>
        """
    }

    /// Every variant on its own. `img.decode()` never settles in headless Chromium's virtual time, so the
    /// decode is proven by drawing: the average colour of the whole picture.
    private static func variantsPage(_ images: [String]) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}img{display:block;width:4px;height:4px}</style>
        <script>
        addEventListener('load', () => {
          const results = [];
          for (const img of document.images) {
            let average = null, problem = '';
            if (img.complete && img.naturalWidth > 0) {
              try {
                const canvas = document.createElement('canvas');
                canvas.width = 1; canvas.height = 1;
                const context = canvas.getContext('2d');
                context.imageSmoothingQuality = 'high';
                context.drawImage(img, 0, 0, 1, 1);
                average = Array.from(context.getImageData(0, 0, 1, 1).data);
              } catch (error) { problem = String(error); }
            } else {
              problem = 'did not load';
            }
            results.push({path: img.dataset.path, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight, average, problem});
          }
          parent.postMessage(JSON.stringify(results), '*');
        });
        </script></head><body>
        \(images.joined(separator: "\n"))
        </body></html>
        """
    }
}
