# The Grimoire API, for docker-compose.yml. On machines without Docker, `make up` runs the same.
FROM python:3.11-slim
WORKDIR /app
# Set PIP_EXTRA_INDEX_URL to a CPU-only torch index to avoid the CUDA wheels.
ARG PIP_EXTRA_INDEX_URL=""
ENV PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
COPY pyproject.toml README.md ./
COPY grimoire grimoire
COPY bench bench
COPY cypher cypher
# the Python client, a distribution of its own the server depends on (its request helpers)
COPY clients/python clients/python
RUN pip install --no-cache-dir ./clients/python -e .
ENV GRIMOIRE_API_HOST=0.0.0.0 GRIMOIRE_API_PORT=8000
EXPOSE 8000
CMD ["grimoire", "serve"]
