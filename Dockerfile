# imgprep on Debian 12 from its package: run `make deb` first (it writes imgprep_VERSION_amd64.deb here),
# then `docker build -t imgprep .`. The package's Depends pulls libheif and its codec plugins from Debian.
# make deb-test runs this file's COPY and RUN steps in a bare Debian 12 tree.
FROM debian:bookworm-slim
COPY imgprep_*_amd64.deb /tmp/
RUN apt-get update \
 && apt-get install -y --no-install-recommends /tmp/imgprep_*_amd64.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/imgprep_*_amd64.deb
ENTRYPOINT ["imgprep"]
